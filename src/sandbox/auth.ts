import type { Db } from './db.js';
import { errors, HttpError, type SandboxRequest } from './http.js';
import { groups, members, projects, tokens, users, type AccessToken, type Group, type Project, type User } from './model.js';

/** Access levels of the spec. */
export const Role = { none: 0, guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export type ScopeNeed = 'read' | 'write' | 'read_user' | 'self_rotate' | 'none';

/** Finds the token a request presents: PRIVATE-TOKEN, JOB-TOKEN, Authorization: Bearer, or the query forms. */
export function presentedToken(req: Pick<SandboxRequest, 'headers' | 'query'>): string | undefined {
  const header = (name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1];
  return header('private-token') ?? header('job-token') ?? bearer ?? req.query.private_token ?? req.query.job_token ?? req.query.access_token;
}

function invalidToken(description: string): HttpError {
  return new HttpError(401, { error: 'invalid_token', error_description: description }, {
    'WWW-Authenticate': `Bearer realm="sandbox", error="invalid_token", error_description="${description}"`,
  });
}

/** Authenticates as real instances do: unknown → 401 message; revoked or expired → 401 invalid_token. */
export function authenticate(req: SandboxRequest, options: { optional?: boolean } = {}): void {
  const value = presentedToken(req);
  if (!value) {
    if (options.optional) return;
    throw errors.unauthorized();
  }
  const token = tokens(req.db).find((t) => t.token === value);
  if (!token) throw errors.unauthorized();
  if (token.revoked) throw invalidToken('Token was revoked. You have to re-authorize from the user.');
  if (isExpired(token, req.now())) throw invalidToken('Token is expired. You can either do re-authorization or token refresh.');
  const user = users(req.db).find((u) => u.id === token.user_id);
  if (!user || user.state === 'blocked') throw errors.unauthorized();
  token.last_used_at = req.now().toISOString();
  req.user = user;
  req.token = token;
}

export function isExpired(token: AccessToken, now: Date): boolean {
  return token.expires_at !== null && token.expires_at < now.toISOString().slice(0, 10) + (token.expires_at.length > 10 ? 'T' : '');
}

/** 403 insufficient_scope when the token's scopes do not allow the request. */
export function checkScope(req: SandboxRequest, need: ScopeNeed): void {
  const token = req.token;
  if (!token || need === 'none' || token.kind === 'job' || token.kind === 'oauth') return;
  const scopes = new Set(token.scopes);
  if (scopes.has('api')) return;
  const allowed =
    (need === 'read' && scopes.has('read_api')) ||
    (need === 'read_user' && (scopes.has('read_api') || scopes.has('read_user'))) ||
    (need === 'self_rotate' && scopes.has('self_rotate'));
  if (!allowed) {
    const scope = need === 'read' ? 'api read_api' : need === 'read_user' ? 'api read_api read_user' : need === 'self_rotate' ? 'api self_rotate' : 'api';
    throw new HttpError(403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope,
    });
  }
}

export function requireUser(req: SandboxRequest): User {
  if (!req.user) throw errors.unauthorized();
  return req.user;
}

export function requireAdmin(req: SandboxRequest): User {
  const user = requireUser(req);
  if (!user.is_admin) throw errors.forbidden();
  return user;
}

/** A project by numeric id or full path (case-insensitive), else 404 "Project Not Found". */
export function findProject(db: Db, idOrPath: string): Project {
  const found = /^\d+$/.test(idOrPath)
    ? projects(db).find((p) => p.id === Number(idOrPath))
    : projects(db).find((p) => p.path_with_namespace.toLowerCase() === idOrPath.toLowerCase());
  if (!found) throw errors.notFound('Project');
  return found;
}

export function findGroup(db: Db, idOrPath: string): Group {
  const found = /^\d+$/.test(idOrPath)
    ? groups(db).find((g) => g.id === Number(idOrPath))
    : groups(db).find((g) => g.full_path.toLowerCase() === idOrPath.toLowerCase());
  if (!found) throw errors.notFound('Group');
  return found;
}

function groupAncestors(db: Db, groupId: number): Group[] {
  const chain: Group[] = [];
  let current = groups(db).find((g) => g.id === groupId);
  while (current) {
    chain.push(current);
    current = current.parent_id === null ? undefined : groups(db).find((g) => g.id === current!.parent_id);
  }
  return chain;
}

function membership(db: Db, type: 'group' | 'project', id: number, userId: number): number {
  return members(db).find((m) => m.source_type === type && m.source_id === id && m.user_id === userId)?.access_level ?? 0;
}

/** The user's effective role in a group (inherited from ancestors); administrators count as owners. */
export function groupRole(db: Db, user: User | undefined, group: Group): number {
  if (!user) return 0;
  if (user.is_admin) return Role.owner;
  return Math.max(0, ...groupAncestors(db, group.id).map((g) => membership(db, 'group', g.id, user.id)));
}

/** The user's effective role in a project (project membership or inherited from its groups). */
export function projectRole(db: Db, user: User | undefined, project: Project): number {
  if (!user) return 0;
  if (user.is_admin) return Role.owner;
  const viaGroups = groupAncestors(db, project.namespace_id).map((g) => membership(db, 'group', g.id, user.id));
  return Math.max(0, membership(db, 'project', project.id, user.id), ...viaGroups);
}

/**
 * The project of `:id`, checked for `minRole`: a project the caller cannot see answers 404, one they see with too
 * low a role answers 403.
 */
export function projectFor(req: SandboxRequest, minRole: number = Role.guest, param = 'id'): Project {
  const project = findProject(req.db, req.params[param]);
  const role = projectRole(req.db, req.user, project);
  const visible = role > 0 || project.visibility === 'public' || (project.visibility === 'internal' && req.user && !req.user.external);
  if (!visible) throw errors.notFound('Project');
  if (role < minRole) throw errors.forbidden();
  return project;
}

export function groupFor(req: SandboxRequest, minRole: number = Role.guest, param = 'id'): Group {
  const group = findGroup(req.db, req.params[param]);
  const role = groupRole(req.db, req.user, group);
  const visible = role > 0 || group.visibility === 'public' || (group.visibility === 'internal' && req.user);
  if (!visible) throw errors.notFound('Group');
  if (role < minRole) throw errors.forbidden();
  return group;
}

/** Premium features answer 403 on the free tier, as instances without the license do. */
export function requireTier(req: SandboxRequest, tier: 'premium' | 'ultimate'): void {
  const rank = { free: 0, premium: 1, ultimate: 2 };
  if (rank[req.tier] < rank[tier]) throw errors.forbidden();
}
