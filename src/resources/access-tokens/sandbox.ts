import {
  authenticateRotation, createPersonalToken, expiryFrom, filterTokens, MAX_LIFETIME_DAYS, presentPersonalToken, presentToken, revokeToken, rotate, scopesFrom, withValue,
} from '../../sandbox/access-tokens.js';
import { checkScope, findGroup, findProject, groupFor, groupRole, projectFor, projectRole, requireAdmin, requireUser, ACCESS_LEVELS, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { deployTokenTable, members, runnerTable, tokens, users, type AccessToken, type StoredDeployToken, type Runner, type User } from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { addToken, addUser, isoDate } from '../../sandbox/seed.js';
import type { Router } from '../../sandbox/router.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { presentRunnerBrief, removeRunner } from '../../sandbox/runners.js';
import { accessTokens } from './resource.js';
import { groupById, projectById } from '../../sandbox/hierarchy.js';
import { found } from '../../sandbox/records.js';

/**
 * Group, project and personal access tokens (spec document 1 "Group access tokens", "States and transitions";
 * api-facts §1.1 and §5): bot users, scopes, access levels, expiry limits, rotation with reuse detection (the
 * machinery in src/sandbox/access-tokens.ts, shared with the tokens of service accounts).
 */

type ResourceKind = 'group' | 'project';
type Resource = { kind: ResourceKind; id: number };

/** The minimum role that manages the tokens of a resource: Owner for groups (spec), Maintainer for projects. */
const managerRole = (kind: ResourceKind): number => (kind === 'group' ? Role.owner : Role.maintainer);

/**
 * The group or project of the route, the caller checked for `minRole`, and the caller's role in it (administrators
 * count as owners; bots are members of their resource).
 */
function resourceOf(req: SandboxRequest, kind: ResourceKind, minRole: number): Resource & { role: number } {
  if (kind === 'group') {
    const group = groupFor(req, minRole);
    return { kind, id: group.id, role: groupRole(req.db, req.user, group) };
  }
  const project = projectFor(req, minRole);
  return { kind, id: project.id, role: projectRole(req.db, req.user, project) };
}

function findTokenOf(db: Db, resource: Resource, id: number): AccessToken | undefined {
  return tokens(db).find((t) => t.id === id && t.kind === resource.kind && t.resource_id === resource.id);
}

/** The resource's token the route names: 404 otherwise. */
function tokenOf(req: SandboxRequest, resource: Resource): AccessToken {
  return found(findTokenOf(req.db, resource, int(req.params.token_id, 'token_id')!), 'Token');
}

/** A bot user for a new group or project token, a member of the resource at the token's access level. */
function createBotUser(db: Db, resource: Resource, name: string, accessLevel: number, now: Date): User {
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

function addResourceToken(db: Db, resource: Resource, fields: Partial<AccessToken> & { name: string; scopes: string[]; access_level: number }, now: Date): AccessToken {
  const bot = createBotUser(db, resource, fields.name, fields.access_level, now);
  return addToken(db, bot, { kind: resource.kind, resource_id: resource.id, expires_at: isoDate(now, MAX_LIFETIME_DAYS), ...fields }, now);
}

function resourceRoutes(api: Router, kind: ResourceKind): void {
  const routes = accessTokens.parents[kind].routes;

  api.route(routes.list, (req) => {
    const resource = resourceOf(req, kind, managerRole(kind));
    const list = tokens(req.db).filter((t) => t.kind === kind && t.resource_id === resource.id);
    return paginate(req, filterTokens(req, list), { present: presentToken });
  });

  api.route(routes.get, (req) => {
    if (req.params.token_id === 'self') {
      const resource = resourceOf(req, kind, Role.guest);
      const own = req.token!;
      if (own.kind !== kind || own.resource_id !== resource.id) throw errors.notFound('Token');
      return ok(presentToken(own));
    }
    return ok(presentToken(tokenOf(req, resourceOf(req, kind, managerRole(kind)))));
  });

  api.route(routes.create, (req) => {
    const resource = resourceOf(req, kind, managerRole(kind));
    const name = String(required(req, 'name'));
    const scopes = scopesFrom(req, false);
    const accessLevel = int(req.input.access_level, 'access_level') ?? Role.maintainer;
    if (!ACCESS_LEVELS.includes(accessLevel)) throw errors.invalid('access_level');
    if (accessLevel > resource.role) {
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
    if (resource.role < managerRole(kind)) throw errors.unauthorized();
    return ok(withValue(rotate(req, target)));
  }, { auth: 'none' });

  api.route(routes.delete, (req) => {
    revokeToken(tokenOf(req, resourceOf(req, kind, managerRole(kind))));
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
    revokeToken(token);
    return noContent();
  };
  api.route(routes.delete, (req) => {
    if (req.params.token_id !== 'self') return revoke(req, findPersonal(req, req.params.token_id));
    if (req.token!.kind !== 'personal') throw errors.message(405, '405 Method Not Allowed');
    return revoke(req, req.token);
  });

  api.route(routes.create, (req) => {
    requireAdmin(req);
    const user = found(users(req.db).find((u) => String(u.id) === req.params.user), 'User');
    return created(withValue(createPersonalToken(req, user)));
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
        const group = groupById(req.db, m.source_id);
        return group ? [{ id: group.id, web_url: `${root}/groups/${group.full_path}`, name: group.name, full_path: group.full_path, parent_id: group.parent_id, access_levels: m.access_level, visibility: group.visibility }] : [];
      }),
      projects: mine.filter((m) => m.source_type === 'project').flatMap((m) => {
        const project = projectById(req.db, m.source_id);
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
    addResourceToken(db, { kind: 'group', id: acme.id }, {
      name: 'acme-ci', description: 'CI automation for acme', scopes: ['api'], access_level: Role.maintainer, expires_at: isoDate(now, 45),
    }, now);
    addResourceToken(db, { kind: 'project', id: api.id }, {
      name: 'api-deploy', description: 'Deploys acme/api', scopes: ['read_repository', 'read_api'], access_level: Role.developer, expires_at: isoDate(now, 30),
    }, now);
  },
};

/** Registered as `tokens` in routes/index.ts. */
export { tokensModule as tokens };
