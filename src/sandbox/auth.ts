import type { Db } from './db.js';
import { groupChain, groupMembershipPaths, projectMembershipPaths } from './hierarchy.js';
import { liveOn } from '../resources/members/resource.js';
import { errors, header, HttpError, type SandboxRequest } from './http.js';
import { groups, members, projects, tokens, users, type AccessToken, type Group, type Member, type Project, type User } from './model.js';

/** Access levels of the spec. */
export const Role = { none: 0, guest: 10, planner: 15, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

/** The access levels a member, a token or a group link may have (every role but none). */
export const ACCESS_LEVELS: number[] = Object.values(Role).filter((level) => level > 0);

export type ScopeNeed = 'read' | 'write' | 'read_user' | 'self_rotate' | 'none';

/** Finds the token a request presents: PRIVATE-TOKEN, JOB-TOKEN, Authorization: Bearer, or the query forms. */
export function presentedToken(req: Pick<SandboxRequest, 'headers' | 'query'>): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
  return header(req, 'private-token') ?? header(req, 'job-token') ?? bearer ?? req.query.private_token ?? req.query.job_token ?? req.query.access_token;
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
  if (!user || !canSignIn(user)) throw errors.unauthorized();
  token.last_used_at = req.now().toISOString();
  req.user = user;
  req.token = token;
  sudo(req);
}

/**
 * The user a request acted as (the Sudo user under sudo) was active today: the service records it after each request
 * that succeeded, once a day, and a user active in the last 90 days cannot be deactivated.
 */
export function recordActivity(req: SandboxRequest): void {
  const today = req.now().toISOString().slice(0, 10);
  if (req.user && req.user.last_activity_on !== today) req.user.last_activity_on = today;
}

/** Only active users sign in or use their tokens (blocked, banned, deactivated and pending users do not). */
export const canSignIn = (user: User): boolean => user.state === 'active';

/**
 * `Sudo: <id or username>` (header or `sudo` parameter): an administrator's token with the sudo scope acts as
 * another user for one request.
 */
function sudo(req: SandboxRequest): void {
  const identifier = header(req, 'sudo') ?? (req.query.sudo as string | undefined);
  if (identifier === undefined || identifier === '') return;
  if (!req.user!.is_admin) throw errors.forbidden('Must be admin to use sudo');
  if (req.token!.kind === 'job') throw errors.forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
  if (req.token!.kind !== 'oauth' && !req.token!.scopes.includes('sudo')) {
    throw new HttpError(403, { error: 'insufficient_scope', error_description: 'The request requires higher privileges than provided by the access token.', scope: 'sudo' });
  }
  const value = String(identifier);
  const user = /^\d+$/.test(value) ? users(req.db).find((u) => u.id === Number(value)) : users(req.db).find((u) => u.username.toLowerCase() === value.toLowerCase());
  if (!user) throw errors.message(404, `404 User with ID or username '${value}' Not Found`);
  req.user = user;
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

/** Positions of a table's records by a key, per table and key kind. */
const positions = new WeakMap<object, Map<string, Map<string, number>>>();

/**
 * The record of `list` whose key is `wanted`, found through an index of positions (a fleet of 10,000 projects is
 * not scanned on every request). A hit is checked against the record now at that position, so a record renamed,
 * moved, added or deleted since makes the index be rebuilt, never a wrong answer.
 */
function indexedFind<T extends object>(list: T[], kind: string, keyOf: (record: T) => string, wanted: string): T | undefined {
  let kinds = positions.get(list);
  if (!kinds) positions.set(list, (kinds = new Map()));
  const at = (index: Map<string, number> | undefined) => {
    const position = index?.get(wanted);
    const record = position === undefined ? undefined : list[position];
    return record && keyOf(record) === wanted ? record : undefined;
  };
  const hit = at(kinds.get(kind));
  if (hit) return hit;
  const index = new Map<string, number>();
  list.forEach((record, position) => {
    const key = keyOf(record);
    if (!index.has(key)) index.set(key, position);
  });
  kinds.set(kind, index);
  return at(index);
}

/** A record by numeric id or full path (case-insensitive), else 404 "<noun> Not Found". */
function findByIdOrPath<T extends { id: number }>(list: T[], pathOf: (record: T) => string, noun: string, idOrPath: string): T {
  const found = /^\d+$/.test(idOrPath)
    ? indexedFind(list, 'id', (record) => String(record.id), String(Number(idOrPath)))
    : indexedFind(list, 'path', (record) => pathOf(record).toLowerCase(), idOrPath.toLowerCase());
  if (!found) throw errors.notFound(noun);
  return found;
}

/** A project by numeric id or full path (case-insensitive), else 404 "Project Not Found". */
export function findProject(db: Db, idOrPath: string): Project {
  return findByIdOrPath(projects(db), (project) => project.path_with_namespace, 'Project', idOrPath);
}

/** A group by numeric id or full path (case-insensitive), else 404 "Group Not Found". */
export function findGroup(db: Db, idOrPath: string): Group {
  return findByIdOrPath(groups(db), (group) => group.full_path, 'Group', idOrPath);
}

/** The highest level of the user's memberships among those paths that still give access today. */
function bestLevel(paths: Member[], userId: number): number {
  const today = new Date().toISOString().slice(0, 10);
  return Math.max(0, ...paths.filter((m) => m.user_id === userId && liveOn(m.expires_at, today)).map((m) => m.access_level));
}

/** The user's role in a group through membership (of it or an ancestor, or of a group it is shared with). */
export function memberRoleInGroup(db: Db, user: User, group: Group): number {
  return bestLevel(groupMembershipPaths(db, group, new Date().toISOString().slice(0, 10)), user.id);
}

/**
 * The user's role in a project through membership: owner of its personal namespace, project member, member of its
 * groups, or of a group the project or its groups are shared with.
 */
export function memberRoleInProject(db: Db, user: User, project: Project): number {
  return bestLevel(projectMembershipPaths(db, project, new Date().toISOString().slice(0, 10)), user.id);
}

/** The user's effective role in a group; administrators count as owners. */
export function groupRole(db: Db, user: User | undefined, group: Group): number {
  if (!user) return 0;
  if (user.is_admin) return Role.owner;
  return memberRoleInGroup(db, user, group);
}

/** The user's effective role in a project; administrators count as owners. */
export function projectRole(db: Db, user: User | undefined, project: Project): number {
  if (!user) return 0;
  if (user.is_admin) return Role.owner;
  return memberRoleInProject(db, user, project);
}

/**
 * The project of the route (`{project}`), checked for `minRole`: a project the caller cannot see answers 404, one
 * they see with too low a role answers 403.
 */
export function projectFor(req: SandboxRequest, minRole: number = Role.guest): Project {
  const project = findProject(req.db, req.params.project);
  const role = projectRole(req.db, req.user, project);
  const open = openToCaller(req, project.visibility);
  if (role <= 0 && !open) throw errors.notFound('Project');
  // What a guest may do, anyone who sees a public (or, signed in, internal) project may: read it.
  if (role < minRole && !(open && minRole <= Role.guest)) throw errors.forbidden();
  return project;
}

/**
 * Whether a record of this visibility is open to the caller without a membership: a public one to everybody, an
 * internal one to signed-in users who are not external.
 */
export function openToCaller(req: SandboxRequest, visibility: string): boolean {
  return visibility === 'public' || (visibility === 'internal' && Boolean(req.user) && !req.user!.external);
}

/** Whether the caller sees the project: members, administrators; public ones to all, internal ones to signed-in users. */
export function projectVisible(req: SandboxRequest, project: Project): boolean {
  return openToCaller(req, project.visibility) || projectRole(req.db, req.user, project) > 0;
}

/**
 * Whether the caller sees the group: members (also of an ancestor), administrators; public and internal groups; and
 * those who see a project in it or in a subgroup below it (a member of a project only), as the service lets them.
 */
export function groupVisible(req: SandboxRequest, group: Group): boolean {
  return openToCaller(req, group.visibility) || groupRole(req.db, req.user, group) > 0 || groupsAboveMemberProjects(req).has(group.id);
}

const aboveMemberProjects = new WeakMap<SandboxRequest, Set<number>>();

/**
 * The ids of the groups that hold a project the caller is a member of (directly, or through a group the project is
 * shared with), and of the groups above them: the groups the caller reads without being their member. Found once
 * per request (a list of groups asks for each).
 */
export function groupsAboveMemberProjects(req: SandboxRequest): Set<number> {
  let found = aboveMemberProjects.get(req);
  if (found) return found;
  found = new Set();
  const user = req.user;
  if (user) {
    const today = req.now().toISOString().slice(0, 10);
    const direct = new Set(members(req.db).filter((m) => m.source_type === 'project' && m.user_id === user.id && liveOn(m.expires_at, today)).map((m) => m.source_id));
    for (const project of projects(req.db)) {
      const member = direct.has(project.id) || (Boolean(project.shared_with_groups?.length) && memberRoleInProject(req.db, user, project) > 0);
      if (member) for (const group of groupChain(req.db, project.namespace_id)) found.add(group.id);
    }
  }
  aboveMemberProjects.set(req, found);
  return found;
}

/**
 * The group of the route (`{group}`), checked for `minRole` as projectFor() checks a project, except that reading it
 * (guest) is for everyone who sees it, members or not.
 */
export function groupFor(req: SandboxRequest, minRole: number = Role.guest): Group {
  const group = findGroup(req.db, req.params.group);
  if (!groupVisible(req, group)) throw errors.notFound('Group');
  if (minRole > Role.guest && groupRole(req.db, req.user, group) < minRole) throw errors.forbidden();
  return group;
}

/** The service shows a private group's members only to its members (and administrators); 403 for others. */
export function checkMembersVisible(req: SandboxRequest, group: Group): void {
  if (group.visibility === 'private' && groupRole(req.db, req.user, group) === 0) throw errors.forbidden();
}

/** A user by numeric id or username (case-insensitive), else 404 "User Not Found". */
export function findUser(db: Db, idOrUsername: string): User {
  const wanted = idOrUsername.toLowerCase();
  const user = /^\d+$/.test(idOrUsername) ? users(db).find((u) => u.id === Number(idOrUsername)) : users(db).find((u) => u.username.toLowerCase() === wanted);
  if (!user) throw errors.notFound('User');
  return user;
}

/**
 * The user of the route (`{user}`) whose records are read or changed: a change
 * (minRole owner, as of the instance) needs an administrator.
 */
export function userFor(req: SandboxRequest, minRole: number = Role.guest): User {
  if (minRole >= Role.owner) requireAdmin(req);
  return findUser(req.db, req.params.user);
}

/** Premium features answer 403 on the free tier, as instances without the license do. */
export function requireTier(req: SandboxRequest, tier: 'premium' | 'ultimate'): void {
  const rank = { free: 0, premium: 1, ultimate: 2 };
  if (rank[req.tier] < rank[tier]) throw errors.forbidden();
}
