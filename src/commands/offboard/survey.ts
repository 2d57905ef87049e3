import type { Api } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { ApiError, UsageError } from '../../errors.js';
import { orderedPool } from '../../fleet/pool.js';
import { accessLevelName } from '../../parse.js';
import { groups } from '../../resources/groups/resource.js';
import { members } from '../../resources/members/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { gpgKeys as gpgKeyRoutes } from '../../resources/gpg-keys/resource.js';
import { sshKeys as sshKeyRoutes } from '../../resources/keys/resource.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { directMemberships, isSoleOwner, notYourself, personalProjects, userRecord, type UserRecord } from '../../resources/users/shared.js';

/**
 * What an offboarding finds before it changes anything: the user and their state, every direct membership (with the
 * full path of its group or project, and whether the user is the group's only owner), their active personal and
 * impersonation tokens, SSH and GPG keys, and the user who takes over the groups they alone own. Everything is read
 * and checked here, so a value that is wrong (an unknown user, a transfer to someone blocked, a mode the service
 * refuses for this user) stops the run before its first write.
 */

export const MODES = ['block', 'deactivate', 'ban'] as const;
export type Mode = (typeof MODES)[number];

/** What an offboarding takes away, each of which --keep can leave alone. */
export const PARTS = ['memberships', 'tokens', 'impersonation-tokens', 'ssh-keys', 'gpg-keys'] as const;
export type Part = (typeof PARTS)[number];

/** States in which a user can sign in and use tokens and keys. */
const SIGNS_IN = 'active';
/** States that already keep the user out at least as well as each mode would (nothing to change then). */
const ENOUGH: Record<Mode, string[]> = {
  block: ['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'],
  // A blocked user cannot be deactivated, and is kept out more firmly (deactivated users come back by signing in).
  deactivate: ['deactivated', 'blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'],
  ban: ['banned'],
};
/** The service deactivates only users without activity in this many days (its minimum dormancy period). */
const DORMANT_DAYS = 90;
const OWNER = 50;
/** Reads of paths and owners at once. */
const CONCURRENCY = 8;

export interface MembershipItem {
  kind: 'group' | 'project';
  id: number;
  path: string;
  access_level: number;
  /** The group's only owner is the user (no other owner in it or above it). */
  soleOwner?: boolean;
}

export interface TokenItem {
  id: number;
  name: string;
  scopes?: string[];
  expires_at?: string | null;
}

export interface KeyItem {
  id: number;
  title: string;
}

/** Taking over a group the user alone owns: add the heir as Owner (or raise their direct membership to Owner). */
export interface Transfer {
  group: MembershipItem;
  /** The heir's direct level in the group now, if they have one. */
  current?: number;
}

export interface Survey {
  user: UserRecord;
  mode: Mode;
  /** Whether the state must change (false: the user is kept out already). */
  changeState: boolean;
  heir?: UserRecord;
  transfers: Transfer[];
  memberships: MembershipItem[];
  /** Groups the user alone owns and nobody takes over: their memberships stay. */
  cannot: MembershipItem[];
  tokens: TokenItem[];
  impersonationTokens: TokenItem[];
  sshKeys: KeyItem[];
  gpgKeys: KeyItem[];
  /** What stays: the projects of the user's own namespace. */
  personalProjects: string[];
}

/** The state change the mode asks for: none when the user is kept out already; refused here when the service would refuse it. */
function stateChange(user: UserRecord, mode: Mode, now: Date): boolean {
  if (ENOUGH[mode].includes(user.state)) return false;
  if (mode === 'ban' && user.state !== SIGNS_IN) {
    throw new UsageError(`${user.username} is ${user.state}: the service bans active users only; nothing was changed`, 'use --mode block (the default), which keeps them out as well');
  }
  if (mode === 'deactivate' && user.last_activity_on && Date.parse(user.last_activity_on) > now.getTime() - DORMANT_DAYS * 86_400_000) {
    throw new UsageError(
      `${user.username} was active on ${user.last_activity_on}: the service deactivates only users without activity in the last ${DORMANT_DAYS} days; nothing was changed`,
      'use --mode block (the default), which the service allows whenever they were last active',
    );
  }
  return true;
}

/**
 * Refuses a bot user (of a project or group access token, or a service account) before anything changes: offboarding
 * is for people, and blocking a bot stops every token CI authenticates with as that bot.
 */
function notABot(user: UserRecord): void {
  if (!user.bot) return;
  throw new UsageError(
    `${user.username} is a bot user (of a project or group access token, or a service account), not a person: offboarding it would stop the tokens that authenticate as it; nothing was changed`,
    'revoke such a token with forgectl tokens revoke (forgectl tokens list --project PATH or --group PATH shows it), or remove a service account with forgectl service-accounts delete',
  );
}

/** The direct memberships with the full paths of their groups and projects, and for owned groups whether the user is the only owner. */
async function namedMemberships(ctx: Context, user: UserRecord): Promise<MembershipItem[]> {
  const { api } = ctx;
  const found = await directMemberships(api, user.id);
  const named: MembershipItem[] = [];
  for await (const outcome of orderedPool(found, CONCURRENCY, async (m) => {
    if (m.source_type === 'Project') {
      const project = await api.call<{ path_with_namespace: string }>(projects.routes.get, { project: m.source_id });
      return { kind: 'project', id: m.source_id, path: project.path_with_namespace, access_level: m.access_level } as MembershipItem;
    }
    const group = await api.call<{ full_path: string }>(groups.routes.get, { group: m.source_id, with_projects: false });
    const item: MembershipItem = { kind: 'group', id: m.source_id, path: group.full_path, access_level: m.access_level };
    if (m.access_level >= OWNER) item.soleOwner = await isSoleOwner(ctx, m.source_id, user);
    return item;
  })) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') named.push(outcome.value);
  }
  return named;
}

/** The heir named by --transfer-to, checked: another user, active. */
async function heirOf(ctx: Context, given: string | undefined, user: UserRecord): Promise<UserRecord | undefined> {
  if (given === undefined) return undefined;
  const heir = await userRecord(ctx, given);
  if (heir.id === user.id) throw new UsageError('--transfer-to names the user being offboarded', 'name the colleague who takes over their groups');
  if (heir.state !== SIGNS_IN) throw new UsageError(`--transfer-to ${heir.username}: the user is ${heir.state}, and cannot own what ${user.username} hands over`, 'name an active user');
  // A bot (of an access token, or a service account) signs in nowhere: the groups handed to it would have nobody to manage them.
  if (heir.bot) throw new UsageError(`--transfer-to ${heir.username}: the user is a bot, and nobody could act as the owner of what ${user.username} hands over; nothing was changed`, 'name a person who takes over their groups');
  return heir;
}

/** The heir's direct level in a group, if any. */
async function directLevel(api: Api, group: number, userId: number): Promise<number | undefined> {
  try {
    return (await api.call<{ access_level: number }>(members.parents.group.routes.get, { group, user_id: userId })).access_level;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The groups to hand over: those the user alone owns, leaving out those under another such group (the heir inherits them). */
function topmost(sole: MembershipItem[]): MembershipItem[] {
  return sole.filter((group) => !sole.some((above) => above !== group && group.path.startsWith(`${above.path}/`)));
}

export async function survey(ctx: Context, given: { user: string; mode: Mode; keep: Part[]; transferTo?: string }): Promise<Survey> {
  const { api } = ctx;
  const user = await userRecord(ctx, given.user);
  await notYourself(ctx, user, 'offboard');
  notABot(user);
  const changeState = stateChange(user, given.mode, ctx.now());
  const heir = await heirOf(ctx, given.transferTo, user);
  const keep = new Set(given.keep);
  const memberships = keep.has('memberships') ? [] : await namedMemberships(ctx, user);
  const sole = memberships.filter((m) => m.soleOwner);
  const transfers: Transfer[] = [];
  if (heir) for (const group of topmost(sole)) transfers.push({ group, current: await directLevel(api, group.id, heir.id) });
  // The list of personal tokens holds the impersonation tokens too: those are revoked (or kept) as such.
  const impersonation = await api.list<TokenItem>(impersonationTokens.routes.list, { user: user.id, state: 'active' }, { all: true }).toArray();
  const impersonationIds = new Set(impersonation.map((t) => t.id));
  const tokens = keep.has('tokens') ? [] : (await api.list<TokenItem>(accessTokens.parents.personal.routes.list, { user_id: user.id, state: 'active' }, { all: true }).toArray()).filter((t) => !impersonationIds.has(t.id));
  const sshKeys = keep.has('ssh-keys') ? [] : await api.list<KeyItem>(sshKeyRoutes.parents.user.routes.list, { user: user.id }, { all: true }).toArray();
  const gpgKeys = keep.has('gpg-keys') ? [] : (await api.list<{ id: number; created_at: string }>(gpgKeyRoutes.parents.user.routes.list, { user: user.id }, { all: true }).toArray()).map((k) => ({ id: k.id, title: `added ${k.created_at.slice(0, 10)}` }));
  return {
    user,
    mode: given.mode,
    changeState,
    heir,
    transfers,
    memberships: heir ? memberships : memberships.filter((m) => !m.soleOwner),
    cannot: heir ? [] : sole,
    tokens,
    impersonationTokens: keep.has('impersonation-tokens') ? [] : impersonation,
    sshKeys,
    gpgKeys,
    personalProjects: await personalProjects(api, user.id),
  };
}

/** "Developer" for a membership's level. */
export const roleOf = (level: number): string => accessLevelName(level);
