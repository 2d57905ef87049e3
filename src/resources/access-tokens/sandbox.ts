import { authenticate, checkScope, findGroup, findProject, groupFor, groupRole, isExpired, presentedToken, projectFor, projectRole, requireAdmin, requireUser, ACCESS_LEVELS, Role } from '../../sandbox/auth.js';
import { newTokenValue, type Db } from '../../sandbox/db.js';
import { array, bool, created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { deployTokenTable, groups, members, projects, runnerTable, tokens, users, type AccessToken, type StoredDeployToken, type Group, type Project, type Runner, type User } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { addToken, addUser, isoDate } from '../../sandbox/seed.js';
import type { Router } from '../../sandbox/router.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { presentPersonalToken } from '../../sandbox/present.js';
import { presentRunnerBrief, removeRunner } from '../../sandbox/runners.js';
import { accessTokens } from './resource.js';

/**
 * Group, project and personal access tokens (spec document 1 "Group access tokens", "States and transitions";
 * api-facts §1.1 and §5): bot users, scopes, access levels, expiry limits, rotation with reuse detection.
 */

export const TOKEN_SCOPES = [
  'api', 'read_api', 'read_user', 'create_runner', 'manage_runner', 'k8s_proxy', 'read_repository', 'write_repository',
  'read_registry', 'write_registry', 'read_virtual_registry', 'write_virtual_registry', 'ai_features', 'self_rotate',
  'sudo', 'admin_mode', 'read_service_ping',
];
/** Scopes a group or project token may not have (they belong to users). */
const USER_ONLY_SCOPES = new Set(['sudo', 'admin_mode', 'read_user', 'read_service_ping']);
const MAX_LIFETIME_DAYS = 365;
const ROTATION_DEFAULT_DAYS = 7;

type ResourceKind = 'group' | 'project';
type Resource = { kind: ResourceKind; id: number; path: string };

/** The fields of a group or project token (api-facts §5): the personal fields plus access_level. */
export function presentResourceToken(token: AccessToken): Record<string, unknown> {
  return { ...presentPersonalToken(token), access_level: token.access_level ?? Role.maintainer };
}

function present(token: AccessToken): Record<string, unknown> {
  return token.kind === 'personal' ? presentPersonalToken(token) : presentResourceToken(token);
}

/** The plaintext value is part of the answer only when a token is created or rotated. */
function withValue(token: AccessToken): Record<string, unknown> {
  return { ...present(token), token: token.token };
}

/** The minimum role that manages the tokens of a resource: Owner for groups (spec), Maintainer for projects. */
const managerRole = (kind: ResourceKind): number => (kind === 'group' ? Role.owner : Role.maintainer);

function resourceOf(req: SandboxRequest, kind: ResourceKind, minRole: number): Resource {
  if (kind === 'group') {
    const group: Group = groupFor(req, minRole);
    return { kind, id: group.id, path: group.full_path };
  }
  const project: Project = projectFor(req, minRole);
  return { kind, id: project.id, path: project.path_with_namespace };
}

/** The caller's role in the resource (administrators count as owners; bots are members of their resource). */
function roleIn(req: SandboxRequest, resource: Resource): number {
  return resource.kind === 'group'
    ? groupRole(req.db, req.user, findGroup(req.db, String(resource.id)))
    : projectRole(req.db, req.user, findProject(req.db, String(resource.id)));
}

function today(req: SandboxRequest, plusDays = 0): string {
  return isoDate(req.now(), plusDays);
}

/** expires_at of a create or rotate request: a real date, today or later, at most a year ahead. */
function expiryFrom(req: SandboxRequest, defaultDays: number): string {
  const value = req.input.expires_at;
  if (value === undefined || value === null || value === '') return today(req, defaultDays);
  const text = String(value);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) throw errors.invalid('expires_at');
  // A token may expire today (it stays valid through its expiry day); only past dates are refused.
  if (text < today(req)) throw errors.validation({ expires_at: ['must be today or later'] });
  const max = today(req, MAX_LIFETIME_DAYS);
  if (text > max) throw errors.validation({ expires_at: [`must be before ${max}`] });
  return text;
}

function scopesFrom(req: SandboxRequest, allowUserScopes: boolean): string[] {
  const scopes = array(required(req, 'scopes')) ?? [];
  if (!scopes.length) throw errors.missing('scopes');
  if (scopes.some((s) => !TOKEN_SCOPES.includes(s) || (!allowUserScopes && USER_ONLY_SCOPES.has(s)))) throw errors.invalid('scopes');
  return [...new Set(scopes)];
}

function findTokenOf(db: Db, resource: Resource, id: number): AccessToken | undefined {
  return tokens(db).find((t) => t.id === id && t.kind === resource.kind && t.resource_id === resource.id);
}

/** Reuse detection: every still-active token of the family is revoked. */
function revokeFamily(db: Db, familyId: number): void {
  for (const token of tokens(db)) {
    if (token.family_id === familyId && !token.revoked) {
      token.revoked = true;
      token.active = false;
    }
  }
}

/**
 * Authenticates a rotation request itself (the route skips the generic check): a revoked token that was already
 * rotated, presented again, revokes its whole family before the 401 (spec "States and transitions").
 */
function authenticateRotation(req: SandboxRequest): void {
  const value = presentedToken(req);
  const presented = value ? tokens(req.db).find((t) => t.token === value) : undefined;
  if (presented?.revoked && presented.rotated) revokeFamily(req.db, presented.family_id);
  authenticate(req);
}

/** Rotates `old`: it is revoked at once and a new token of the same family, bot user and scopes is returned. */
function rotate(req: SandboxRequest, old: AccessToken): AccessToken {
  if (old.revoked) {
    if (old.rotated) revokeFamily(req.db, old.family_id);
    throw errors.unauthorized();
  }
  if (isExpired(old, req.now())) throw errors.unauthorized();
  const expiresAt = expiryFrom(req, ROTATION_DEFAULT_DAYS);
  old.revoked = true;
  old.active = false;
  old.rotated = true;
  const fresh: AccessToken = {
    ...old,
    id: req.db.nextId('tokens'),
    revoked: false,
    active: true,
    rotated: undefined,
    created_at: req.now().toISOString(),
    expires_at: expiresAt,
    last_used_at: null,
    token: newTokenValue(),
  };
  delete fresh.rotated;
  tokens(req.db).push(fresh);
  return fresh;
}

/** A bot user for a new group or project token, a member of the resource at the token's access level. */
export function createBotUser(db: Db, resource: Resource, name: string, accessLevel: number, now: Date): User {
  const suffix = Math.random().toString(16).slice(2, 10);
  const bot = addUser(db, {
    username: `${resource.kind}_${resource.id}_bot_${suffix}`,
    name,
    email: `${resource.kind}_${resource.id}_bot_${suffix}@noreply.sandbox.test`,
    bot: true,
    bot_of: { type: resource.kind, id: resource.id },
  }, now);
  members(db).push({ source_type: resource.kind, source_id: resource.id, user_id: bot.id, access_level: accessLevel });
  return bot;
}

export function addResourceToken(db: Db, resource: Resource, fields: Partial<AccessToken> & { name: string; scopes: string[]; access_level: number }, now: Date): AccessToken {
  const bot = createBotUser(db, resource, fields.name, fields.access_level, now);
  return addToken(db, bot, { kind: resource.kind, resource_id: resource.id, expires_at: isoDate(now, MAX_LIFETIME_DAYS), ...fields }, now);
}

/** The list filters shared by group, project and personal token lists (spec endpoint 1, api-facts §5). */
function filterTokens(req: SandboxRequest, list: AccessToken[]): AccessToken[] {
  const q = req.query;
  const now = req.now();
  const isActive = (t: AccessToken) => !t.revoked && !isExpired(t, now);
  if (q.state !== undefined) {
    if (!['active', 'inactive'].includes(String(q.state))) throw errors.invalid('state');
    list = list.filter((t) => (q.state === 'active' ? isActive(t) : !isActive(t)));
  }
  const revoked = bool(q.revoked);
  if (revoked !== undefined) list = list.filter((t) => t.revoked === revoked);
  if (q.search) list = list.filter((t) => t.name.toLowerCase().includes(String(q.search).toLowerCase()));
  const time = (name: string): number | undefined => {
    if (q[name] === undefined || q[name] === '') return undefined;
    const value = Date.parse(String(q[name]));
    if (Number.isNaN(value)) throw errors.invalid(name);
    return value;
  };
  const bounds: Array<[string, (t: AccessToken) => string | null, 'after' | 'before']> = [
    ['created_after', (t) => t.created_at, 'after'], ['created_before', (t) => t.created_at, 'before'],
    ['expires_after', (t) => t.expires_at, 'after'], ['expires_before', (t) => t.expires_at, 'before'],
    ['last_used_after', (t) => t.last_used_at, 'after'], ['last_used_before', (t) => t.last_used_at, 'before'],
  ];
  for (const [name, field, direction] of bounds) {
    const bound = time(name);
    if (bound === undefined) continue;
    list = list.filter((t) => {
      const value = field(t);
      if (value === null) return false;
      const at = Date.parse(value);
      return direction === 'after' ? at > bound : at < bound;
    });
  }
  const sort = q.sort === undefined ? 'created_desc' : String(q.sort);
  const match = /^(created|expires|last_used|name)_(asc|desc)$/.exec(sort);
  if (!match) throw errors.invalid('sort');
  const key = { created: 'created_at', expires: 'expires_at', last_used: 'last_used_at', name: 'name' }[match[1]] as keyof AccessToken;
  const sign = match[2] === 'asc' ? 1 : -1;
  return [...list].sort((a, b) => {
    const x = (a[key] ?? '') as string;
    const y = (b[key] ?? '') as string;
    return (x < y ? -1 : x > y ? 1 : a.id - b.id) * sign;
  });
}

function resourceRoutes(api: Router, kind: ResourceKind): void {
  const routes = accessTokens.parents[kind].routes;

  api.route(routes.list, (req) => {
    const resource = resourceOf(req, kind, managerRole(kind));
    const list = tokens(req.db).filter((t) => t.kind === kind && t.resource_id === resource.id);
    return paginate(req, filterTokens(req, list), { present: presentResourceToken });
  });

  api.route(routes.get, (req) => {
    if (req.params.token_id === 'self') {
      const resource = resourceOf(req, kind, Role.guest);
      const own = req.token!;
      if (own.kind !== kind || own.resource_id !== resource.id) throw errors.notFound('Token');
      return ok(presentResourceToken(own));
    }
    const resource = resourceOf(req, kind, managerRole(kind));
    const token = findTokenOf(req.db, resource, int(req.params.token_id, 'token_id')!);
    if (!token) throw errors.notFound('Token');
    return ok(presentResourceToken(token));
  });

  api.route(routes.create, (req) => {
    const resource = resourceOf(req, kind, managerRole(kind));
    const name = String(required(req, 'name'));
    const scopes = scopesFrom(req, false);
    const accessLevel = int(req.input.access_level, 'access_level') ?? Role.maintainer;
    if (!ACCESS_LEVELS.includes(accessLevel)) throw errors.invalid('access_level');
    if (accessLevel > roleIn(req, resource)) {
      throw errors.badRequest('Access level of the token can\'t be greater the access level of the user who created the token');
    }
    const expiresAt = expiryFrom(req, MAX_LIFETIME_DAYS);
    const token = addResourceToken(req.db, resource, {
      name, scopes, access_level: accessLevel, expires_at: expiresAt, description: String(req.input.description ?? ''),
    }, req.now());
    return created(withValue(token));
  });

  api.route(routes.rotate, (req) => {
    authenticateRotation(req);
    const caller = req.token!;
    if (req.params.token_id === 'self') {
      const resource = resourceOf(req, kind, Role.guest);
      if (caller.kind !== 'group' && caller.kind !== 'project') throw errors.message(405, '405 Method Not Allowed');
      if (caller.kind !== kind || caller.resource_id !== resource.id) throw errors.unauthorized();
      checkScope(req, 'self_rotate');
      return ok(withValue(rotate(req, caller)));
    }
    checkScope(req, 'write');
    const id = int(req.params.token_id, 'token_id')!;
    // A group or project token may rotate only itself, and only through `self` (spec: 401).
    if ((caller.kind === 'group' || caller.kind === 'project') && caller.id !== id) throw errors.unauthorized();
    const resource = resourceOf(req, kind, Role.guest);
    const target = findTokenOf(req.db, resource, id);
    if (!target) throw req.user!.is_admin ? errors.notFound('Token') : errors.unauthorized();
    if (roleIn(req, resource) < managerRole(kind)) throw errors.unauthorized();
    return ok(withValue(rotate(req, target)));
  }, { auth: 'none' });

  api.route(routes.delete, (req) => {
    const resource = resourceOf(req, kind, managerRole(kind));
    const id = int(req.params.token_id, 'token_id');
    const token = id === undefined ? undefined : findTokenOf(req.db, resource, id);
    if (!token) throw errors.notFound('Token');
    if (token.revoked) throw errors.badRequest('Token already revoked');
    token.revoked = true;
    token.active = false;
    return noContent();
  });
}

function personalRoutes(api: Router): void {
  const routes = accessTokens.parents.personal.routes;
  const own = (req: SandboxRequest, token: AccessToken): boolean => requireUser(req).is_admin || token.user_id === req.user!.id;
  const findPersonal = (req: SandboxRequest, raw: string): AccessToken | undefined => {
    const id = int(raw, 'id')!;
    return tokens(req.db).find((t) => t.id === id && t.kind === 'personal');
  };

  api.route(routes.list, (req) => {
    const user = requireUser(req);
    const userId = int(req.query.user_id, 'user_id');
    if (!user.is_admin && userId !== undefined && userId !== user.id) throw errors.unauthorized();
    let list = tokens(req.db).filter((t) => t.kind === 'personal');
    if (!user.is_admin) list = list.filter((t) => t.user_id === user.id);
    else if (userId !== undefined) list = list.filter((t) => t.user_id === userId);
    return paginate(req, filterTokens(req, list), { present: presentPersonalToken });
  });

  // The token in use reads itself whatever its scopes (a job or OAuth token has no record: 405); any other id
  // goes to `get` below. The more specific route answers first.
  api.route(routes.self, (req) => {
    const token = req.token!;
    if (token.kind === 'job' || token.kind === 'oauth') throw errors.message(405, '405 Method Not Allowed');
    return ok(presentPersonalToken(token));
  }, { scope: 'none' });

  api.route(routes.get, (req) => {
    const token = findPersonal(req, req.params.token_id);
    if (!token || !own(req, token)) throw errors.notFound('Token');
    return ok(presentPersonalToken(token));
  });

  api.route(routes.rotate, (req) => {
    authenticateRotation(req);
    const caller = req.token!;
    if (req.params.token_id === 'self') {
      if (caller.kind !== 'personal') throw errors.message(405, '405 Method Not Allowed');
      checkScope(req, 'self_rotate');
      return ok(withValue(rotate(req, caller)));
    }
    checkScope(req, 'write');
    const target = findPersonal(req, req.params.token_id);
    if (!target) throw req.user!.is_admin ? errors.notFound('Token') : errors.unauthorized();
    // Non-administrators rotate only their own tokens; access tokens are not personal tokens (405).
    if (caller.kind !== 'personal') throw errors.message(405, '405 Method Not Allowed');
    if (!own(req, target)) throw errors.unauthorized();
    return ok(withValue(rotate(req, target)));
  }, { auth: 'none' });

  const revoke = (req: SandboxRequest, token: AccessToken | undefined) => {
    if (!token || !own(req, token)) throw errors.notFound('Token');
    if (token.revoked) throw errors.badRequest('Token already revoked');
    token.revoked = true;
    token.active = false;
    return noContent();
  };
  api.route(routes.delete, (req) => {
    if (req.params.token_id !== 'self') return revoke(req, findPersonal(req, req.params.token_id));
    if (req.token!.kind !== 'personal') throw errors.message(405, '405 Method Not Allowed');
    return revoke(req, req.token);
  });

  api.route(routes.create, (req) => {
    if (!requireUser(req).is_admin) throw errors.forbidden();
    const user = users(req.db).find((u) => String(u.id) === req.params.user);
    if (!user) throw errors.notFound('User');
    const name = String(required(req, 'name'));
    const scopes = scopesFrom(req, true);
    const expiresAt = expiryFrom(req, MAX_LIFETIME_DAYS);
    const id = req.db.nextId('tokens');
    const token: AccessToken = {
      id, kind: 'personal', user_id: user.id, name, description: String(req.input.description ?? ''), scopes,
      active: true, revoked: false, created_at: req.now().toISOString(), expires_at: expiresAt, last_used_at: null,
      token: newTokenValue(), family_id: id,
    };
    tokens(req.db).push(token);
    return created(withValue(token));
  });
}

/**
 * The token information API (administrators): `POST /admin/token` says what any token is, `DELETE /admin/token`
 * revokes it, whatever its kind. 400 without `token`, 401 unauthenticated, 403 for non-administrators, 404 for a
 * token the instance does not know, 422 for a kind it cannot identify or revoke (the sandbox: job and OAuth tokens).
 * Personal, group, project and impersonation tokens answer as the personal access token entity (a group or project
 * token is its bot user's personal token); a revoked token is still identified. A runner authentication token
 * answers as its runner (the record runner lists give), and revoking it unregisters the runner.
 */
function adminTokenRoutes(api: Router): void {
  const find = (req: SandboxRequest): { access: AccessToken } | { deploy: StoredDeployToken } | { runner: Runner } => {
    requireAdmin(req);
    const value = String(required(req, 'token'));
    const token = tokens(req.db).find((t) => t.token === value);
    if (!token) {
      const deploy = deployTokenTable(req.db).find((t) => t.token === value);
      if (deploy) return { deploy };
      const runner = runnerTable(req.db).find((r) => r.token === value);
      if (runner) return { runner };
      throw errors.notFound();
    }
    if (token.kind === 'job' || token.kind === 'oauth') throw errors.message(422, '422 Unprocessable Entity');
    return { access: token };
  };
  // A deploy token answers as the deploy token entity (it has no user, and the entity does not name its project).
  const presentDeploy = (token: StoredDeployToken, now: Date) => ({
    id: token.id, name: token.name, username: token.username, expires_at: token.expires_at, scopes: token.scopes, revoked: token.revoked,
    expired: token.expires_at !== null && token.expires_at <= now.toISOString(),
  });
  const routes = accessTokens.parents.personal.routes;
  api.route(routes.identify, (req) => {
    const found = find(req);
    if ('runner' in found) return ok(presentRunnerBrief(found.runner, req.now()));
    return ok('deploy' in found ? presentDeploy(found.deploy, req.now()) : presentPersonalToken(found.access));
  });
  api.route(routes.revoke_by_value, (req) => {
    const found = find(req);
    // A runner authentication token is revoked by unregistering its runner, as DELETE /runners does.
    if ('runner' in found) {
      removeRunner(req.db, found.runner);
      return noContent();
    }
    const token = 'deploy' in found ? found.deploy : found.access;
    if (token.revoked) throw errors.badRequest('Token already revoked');
    token.revoked = true;
    if ('access' in found) found.access.active = false;
    return noContent();
  });
}

/**
 * `GET /personal_access_tokens/self/associations`: the groups and projects the token's user is a direct member of
 * (how a group or project token, as itself, learns where it belongs).
 */
function associationRoutes(api: Router): void {
  api.route(accessTokens.parents.personal.routes.associations, (req) => {
    const token = req.token!;
    if (token.kind === 'job' || token.kind === 'oauth') throw errors.message(405, '405 Method Not Allowed');
    const mine = members(req.db).filter((m) => m.user_id === token.user_id);
    const root = req.rootUrl;
    return ok({
      groups: mine.filter((m) => m.source_type === 'group').flatMap((m) => {
        const group = groups(req.db).find((g) => g.id === m.source_id);
        return group ? [{ id: group.id, web_url: `${root}/groups/${group.full_path}`, name: group.name, full_path: group.full_path, parent_id: group.parent_id, access_levels: m.access_level, visibility: group.visibility }] : [];
      }),
      projects: mine.filter((m) => m.source_type === 'project').flatMap((m) => {
        const project = projects(req.db).find((p) => p.id === m.source_id);
        return project ? [{
          id: project.id, name: project.name, path: project.path, path_with_namespace: project.path_with_namespace, created_at: project.created_at,
          access_levels: { project_access_level: m.access_level, group_access_level: null }, visibility: project.visibility, web_url: `${root}/${project.path_with_namespace}`,
        }] : [];
      }),
    });
  }, { scope: 'none' });
}

export const tokensModule: SandboxModule = {
  routes(api) {
    associationRoutes(api);
    resourceRoutes(api, 'group');
    resourceRoutes(api, 'project');
    personalRoutes(api);
    adminTokenRoutes(api);
  },
  seed(db, { now }) {
    // Seeded tokens expire 30 days or more ahead, so a fresh sandbox never trips an expiry warning.
    const acme = findGroup(db, 'acme');
    const api = findProject(db, 'acme/api');
    addResourceToken(db, { kind: 'group', id: acme.id, path: acme.full_path }, {
      name: 'acme-ci', description: 'CI automation for acme', scopes: ['api'], access_level: Role.maintainer, expires_at: isoDate(now, 45),
    }, now);
    addResourceToken(db, { kind: 'project', id: api.id, path: api.path_with_namespace }, {
      name: 'api-deploy', description: 'Deploys acme/api', scopes: ['read_repository', 'read_api'], access_level: Role.developer, expires_at: isoDate(now, 30),
    }, now);
  },
};

/** Registered as `tokens` in routes/index.ts. */
export { tokensModule as tokens };
