import type { Api } from '../../api/client.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { readSecret } from '../../cli/secrets.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { groups } from '../../resources/groups/resource.js';
import { runners } from '../../resources/runners/resource.js';
import { users } from '../../resources/users/resource.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { accessLevelName } from '../../parse.js';
import { TokenTarget } from './shared.js';

/**
 * `tokens identify`: what a token (read from stdin, never from argv) is, whose it is and where it belongs, from the
 * service's token information endpoint when the caller is an administrator, otherwise from the token's own self
 * endpoints; `--revoke` revokes it after a confirmation that names its owner.
 */

interface Options {
  revoke?: boolean;
}

interface PatEntity {
  id: number;
  name: string;
  user_id: number;
  scopes?: string[];
  active?: boolean;
  revoked?: boolean;
  expires_at?: string | null;
  last_used_at?: string | null;
  created_at?: string;
  description?: string | null;
}

interface Owner {
  id: number;
  username: string;
  name?: string;
  bot?: boolean;
}

type Place = { kind: 'project' | 'group'; id: number; path: string; access_level?: number };

export interface Identified {
  type: string;
  id: number;
  name: string;
  owner: string | null;
  owner_name: string | null;
  user_id: number | null;
  project: string | null;
  group: string | null;
  access_level_name: string | null;
  scopes: string[];
  active: boolean | null;
  revoked: boolean | null;
  created_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  /** admin: the token information endpoint; self: the token's own endpoints. */
  source: 'admin' | 'self';
  /** The command that revokes it; empty once it is revoked or inactive (nothing left to do). */
  fix: string;
}

const personal = accessTokens.parents.personal.routes;

/** No backslash in it: TSV escapes one, and the command copied from a pipe's output would differ. */
const REVOKE = 'printf \'%s\' "$TOKEN" | forgectl tokens identify --revoke --yes';

export default defineCommand<Options>({
  description: [
    'Reads the token from stdin (a masked prompt on a terminal; never from the command line) and prints what the',
    'service knows about it: its type (personal, project, group, impersonation, deploy or runner authentication',
    'token), owner, project or group,',
    'scopes, expiry and last use. As an administrator this asks the token information endpoint, which knows every',
    'token of the instance; otherwise it asks the token itself through its self endpoints (a revoked or expired',
    'token then says no more than that: exit 4). --revoke revokes it at once after a confirmation naming the owner',
    '(--yes off a terminal); whatever uses it gets 401 from then on (a runner authentication token is revoked by',
    'unregistering its runner). Exit 5 when the instance does not know the token.',
  ].join(' '),
  exits: { 9: 'the token was revoked, but it still authenticates' },
  examples: [
    'printf \'%s\\n\' "$LEAKED_TOKEN" | forgectl -p admin tokens identify',
    'printf \'%s\\n\' "$LEAKED_TOKEN" | forgectl -p admin tokens identify -o json',
    'printf \'%s\\n\' "$LEAKED_TOKEN" | forgectl -p admin tokens identify --revoke --yes',
  ],
  options: [{ flags: '--revoke', description: 'revoke the token once identified (asks first; --yes off a terminal)' }],
  columns: ['type', 'id', 'name', 'owner', 'project', 'group', 'scopes', 'active', 'expires_at', 'last_used_at'],
  async run(opts, ctx) {
    if (ctx.globals.dryRun) {
      throw new UsageError('--dry-run does not go with tokens identify: identifying sends the token to the service', 'leave out --revoke to change nothing');
    }
    const token = (await readSecret(ctx, 'Token to identify', { stdin: true })).trim();
    const admin = await isAdmin(ctx);
    const identified = admin ? await viaAdmin(ctx, token) : await viaSelf(ctx, token);
    const found = identified.revoked || identified.active === false ? { ...identified, fix: '' } : identified;
    if (!opts.revoke) return found;

    if (found.revoked || found.active === false) {
      ctx.io.note(`${describe(found)} is already ${found.revoked ? 'revoked' : 'inactive'}; nothing to revoke`);
      return found;
    }
    const runner = found.type === RUNNER_TOKEN;
    await ctx.confirm(runner ? `Revoke ${describe(found)}? Its runner is unregistered and takes no more jobs` : `Revoke ${describe(found)}? Whatever uses it gets 401 from then on`);
    await revoke(ctx, token, found, admin);
    const still = runner ? (await verifyRunner(ctx.api, token)) !== undefined : await stillWorks(ctx.apiWithToken(token));
    if (still) throw new CliError(`${describe(found)} was revoked, but it still authenticates`, ExitCode.attention, 'check it: printf \'%s\\n\' "$TOKEN" | forgectl tokens identify');
    ctx.io.note(`Revoked ${describe(found)}; it is refused from now on`);
    // Nothing left to do: no revoke command for the token just revoked.
    return { ...found, active: false, revoked: true, fix: '' };
  },
});

/** "the project access token "deploy" (id 12) of @project_3_bot_1a2b in acme/api". */
function describe(found: Identified): string {
  const where = found.project ? ` in project ${found.project}` : found.group ? ` in group ${found.group}` : '';
  const owner = found.owner ? ` of @${found.owner}${found.owner_name ? ` (${found.owner_name})` : ''}` : '';
  return `the ${found.type} "${found.name}" (id ${found.id})${owner}${where}`;
}

async function isAdmin(ctx: Context): Promise<boolean> {
  try {
    return Boolean((await ctx.api.call<{ is_admin?: boolean }>(users.routes.current)).is_admin);
  } catch (error) {
    // A job token or a narrow token cannot read /user: not an administrator's.
    if (error instanceof ApiError && [401, 403].includes(error.status)) return false;
    throw error;
  }
}

/** An administrator asks the token information endpoint, then reads the owner and, for a bot, its one membership. */
async function viaAdmin(ctx: Context, token: string): Promise<Identified> {
  let entity: PatEntity;
  try {
    entity = await ctx.api.call<PatEntity>(personal.identify, { token });
  } catch (error) {
    throw unknownToken(error);
  }
  if (entity.user_id === undefined && typeof (entity as { username?: unknown }).username === 'string') return deployRecord(entity as unknown as DeployEntity);
  if (entity.user_id === undefined && typeof (entity as { runner_type?: unknown }).runner_type === 'string') return runnerRecord(ctx.api, entity as unknown as RunnerEntity);
  const owner = await ctx.api.call<Owner>(users.routes.get, { user: entity.user_id });
  let place: Place | undefined;
  let type = 'personal access token';
  if (owner.bot) {
    place = await botPlace(ctx.api, owner.id);
    if (place) type = `${place.kind} access token`;
  } else if (await isImpersonation(ctx.api, owner.id, entity.id)) {
    type = 'impersonation token';
  }
  return record(entity, type, owner, place, 'admin');
}

/** Without administrator rights, the token tells about itself (it must still work to do so). */
async function viaSelf(ctx: Context, token: string): Promise<Identified> {
  const as = ctx.apiWithToken(token);
  let entity: PatEntity;
  try {
    entity = await as.call<PatEntity>(personal.get, { token_id: 'self' });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      // A runner authentication token is no user's: the API refuses it, the runner endpoint knows it.
      const verified = await verifyRunner(ctx.api, token);
      if (verified) return { ...runnerFields(verified.id, null), expires_at: verified.token_expires_at ?? null, active: true, source: 'self' };
      throw new CliError(`the token is refused by the service (401): ${error.message}`, ExitCode.auth,
        'it is revoked, expired or unknown to this instance: it cannot be used any more. An administrator learns more: forgectl -p ADMIN tokens identify');
    }
    if (error instanceof ApiError && error.status === 405) {
      throw new CliError('this token has no record of its own (a CI job or OAuth token)', ExitCode.rejected, 'an administrator can identify it: forgectl -p ADMIN tokens identify');
    }
    throw error;
  }
  const owner = await as.call<Owner>(users.routes.current).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 403) return undefined; // a token without read_user or api
    throw error;
  });
  let place: Place | undefined;
  let type = 'personal access token';
  if (owner?.bot) {
    const links = await as.call<{ groups?: Array<{ id: number; full_path?: string; name: string; access_levels?: number }>; projects?: Array<{ id: number; path_with_namespace: string; access_levels?: { project_access_level?: number } }> }>(personal.associations).catch(() => undefined);
    const group = links?.groups?.[0];
    const project = links?.projects?.[0];
    if (project) place = { kind: 'project', id: project.id, path: project.path_with_namespace, access_level: project.access_levels?.project_access_level };
    else if (group) place = { kind: 'group', id: group.id, path: group.full_path ?? group.name, access_level: group.access_levels };
    if (place) type = `${place.kind} access token`;
  }
  return record(entity, type, owner, place, 'self');
}

/** Where a bot user belongs: its one direct membership (a group or project token's bot is a member of that only). */
async function botPlace(api: Api, userId: number): Promise<Place | undefined> {
  const memberships = await api.call<Array<{ source_id: number; source_type: string; access_level: number }>>(users.routes.memberships, { user: userId });
  const first = memberships[0];
  if (!first) return undefined;
  if (first.source_type === 'Project') {
    const project = await api.call<{ path_with_namespace: string }>(projects.routes.get, { project: first.source_id });
    return { kind: 'project', id: first.source_id, path: project.path_with_namespace, access_level: first.access_level };
  }
  const group = await api.call<{ full_path: string }>(groups.routes.get, { group: first.source_id });
  return { kind: 'group', id: first.source_id, path: group.full_path, access_level: first.access_level };
}

async function isImpersonation(api: Api, userId: number, tokenId: number): Promise<boolean> {
  try {
    await api.call(impersonationTokens.routes.get, { user: userId, impersonation_token_id: tokenId });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

function record(entity: PatEntity, type: string, owner: Owner | undefined, place: Place | undefined, source: 'admin' | 'self'): Identified {
  return {
    type,
    id: entity.id,
    name: entity.name,
    owner: owner?.username ?? null,
    owner_name: owner?.name ?? null,
    user_id: entity.user_id ?? owner?.id ?? null,
    project: place?.kind === 'project' ? place.path : null,
    group: place?.kind === 'group' ? place.path : null,
    access_level_name: place?.access_level === undefined ? null : accessLevelName(place.access_level),
    scopes: entity.scopes ?? [],
    active: entity.active ?? null,
    revoked: entity.revoked ?? null,
    created_at: entity.created_at ?? null,
    expires_at: entity.expires_at ?? null,
    last_used_at: entity.last_used_at ?? null,
    source,
    fix: REVOKE,
  };
}

interface DeployEntity {
  id: number;
  name: string;
  username: string;
  scopes?: string[];
  revoked?: boolean;
  expired?: boolean;
  expires_at?: string | null;
}

/** A deploy token: no user, and the service does not say which project or group it belongs to. */
function deployRecord(entity: DeployEntity): Identified {
  return {
    type: 'deploy token', id: entity.id, name: entity.name, owner: entity.username, owner_name: null, user_id: null, project: null, group: null,
    access_level_name: null, scopes: entity.scopes ?? [], active: !entity.revoked && !entity.expired, revoked: entity.revoked ?? null, created_at: null,
    expires_at: entity.expires_at ?? null, last_used_at: null, source: 'admin', fix: REVOKE,
  };
}

const RUNNER_TOKEN = 'runner authentication token';

interface RunnerEntity {
  id: number;
  description?: string | null;
  name?: string | null;
  active?: boolean;
  paused?: boolean;
  runner_type: string;
}

/** What a runner's token says before its runner is read: no user, no scopes. */
function runnerFields(id: number, name: string | null): Identified {
  return {
    type: RUNNER_TOKEN, id, name: name ?? '', owner: null, owner_name: null, user_id: null, project: null, group: null, access_level_name: null,
    scopes: [], active: null, revoked: false, created_at: null, expires_at: null, last_used_at: null, source: 'admin', fix: REVOKE,
  };
}

/** A runner's authentication token: the runner is read for the project or group it belongs to (none for the instance's). */
async function runnerRecord(api: Api, entity: RunnerEntity): Promise<Identified> {
  const runner = await api.call<{ created_at?: string; projects?: Array<{ path_with_namespace: string }>; groups?: Array<{ id: number }> }>(runners.parents.own.routes.get, { runner_id: entity.id });
  const groupId = runner.groups?.[0]?.id;
  const group = groupId === undefined ? undefined : await api.call<{ full_path: string }>(groups.routes.get, { group: groupId });
  return {
    ...runnerFields(entity.id, entity.description || entity.name || ''),
    project: runner.projects?.[0]?.path_with_namespace ?? null,
    group: group?.full_path ?? null,
    active: entity.active ?? (entity.paused === undefined ? null : !entity.paused),
    created_at: runner.created_at ?? null,
  };
}

/** The runner an authentication token belongs to (the service answers the token itself, 403 when it is not one). */
async function verifyRunner(api: Api, token: string): Promise<{ id: number; token_expires_at?: string | null } | undefined> {
  try {
    return await api.call<{ id: number; token_expires_at?: string | null }>(runners.parents.own.routes.verify, {}, { body: { token } });
  } catch (error) {
    if (error instanceof ApiError && [401, 403, 404].includes(error.status)) return undefined;
    throw error;
  }
}

function unknownToken(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.status === 404) return new CliError('this instance does not know the token (404)', ExitCode.notFound, 'it was never issued here, or it was deleted with its owner; check which instance it belongs to');
  if (error.status === 422) return new CliError('the service cannot identify this kind of token (422)', ExitCode.rejected);
  return error;
}

/** Revokes: the token information endpoint (administrators), else the token's own revoke or its group's or project's. */
async function revoke(ctx: Context, token: string, found: Identified, admin: boolean): Promise<void> {
  if (found.type === RUNNER_TOKEN && !admin) {
    // The token unregisters its own runner.
    await ctx.api.call(runners.parents.own.routes.delete_by_token, {}, { body: { token } });
    return;
  }
  if (admin) {
    // The token goes in the body: a DELETE's parameters would be its query, in the URL.
    await ctx.api.call(personal.revoke_by_value, {}, { body: { token } });
    return;
  }
  const target = found.project ? new TokenTarget('project', found.project) : found.group ? new TokenTarget('group', found.group) : undefined;
  if (target) {
    try {
      await ctx.api.call(target.route('delete'), target.params(found.id));
      return;
    } catch (error) {
      if (!(error instanceof ApiError) || ![401, 403, 404].includes(error.status)) throw error;
      // The caller does not manage that group's or project's tokens: the token revokes itself.
    }
  }
  await ctx.apiWithToken(token).call(personal.delete, { token_id: 'self' });
}

async function stillWorks(as: Api): Promise<boolean> {
  try {
    await as.call(personal.get, { token_id: 'self' });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return false;
    throw error;
  }
}
