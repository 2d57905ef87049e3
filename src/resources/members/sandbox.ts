import { checkMembersVisible, findGroup, groupFor, groupRole, projectFor, projectRole, requireAdmin, requireUser, ACCESS_LEVELS, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { descendantGroups, directMembers, fullName, groupById, groupChain, groupMembershipPaths, projectById, projectGroup, projectMembershipPaths } from '../../sandbox/hierarchy.js';
import { bool, created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { intList, matches } from '../../sandbox/listing.js';
import { groups, members, projects, tokens, users, type Group, type Member, type User } from '../../sandbox/model.js';
import type { SandboxModule, SeedContext } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { found, presentRecord, titleCase } from '../../sandbox/records.js';
import { isBillable } from '../../sandbox/users.js';
import type { Router } from '../../sandbox/router.js';
import { addUser, fleetProjectPath, isoDate } from '../../sandbox/seed.js';
import { liveOn, members as declared } from './resource.js';
import { users as declaredUsers } from '../users/resource.js';

/**
 * Members of groups and projects: direct members (list, get, add, change, remove), every member with inherited
 * and invited ones (`/members/all`), and the memberships of a user. Changing members needs Maintainer; granting or
 * changing the Owner role, and changing an owner, needs Owner; the last owner of a top-level group stays.
 */

type SourceType = 'group' | 'project';

interface Source {
  type: SourceType;
  id: number;
  /** Memberships of the groups above it (a project's group and its ancestors; a subgroup's ancestors). */
  above(): Member[];
  /** The caller's role in the source. */
  role: number;
  /** Direct, inherited and invited memberships in force, nearest first. */
  inherited(): Member[];
}

const today = (req: SandboxRequest): string => req.now().toISOString().slice(0, 10);

/** The memberships in force today: the service removes one at the start of its expiry day. */
const inForce = (req: SandboxRequest, list: Member[]): Member[] => list.filter((m) => liveOn(m.expires_at, today(req)));

function sourceOf(req: SandboxRequest, type: SourceType, minRole: number = Role.guest): Source {
  if (type === 'group') {
    const group = groupFor(req, minRole);
    checkMembersVisible(req, group);
    return { type, id: group.id, role: groupRole(req.db, req.user, group), inherited: () => inForce(req, groupMembershipPaths(req.db, group, today(req))), above: () => membershipsFrom(req.db, group.parent_id) };
  }
  const project = projectFor(req, minRole);
  return { type, id: project.id, role: projectRole(req.db, req.user, project), inherited: () => inForce(req, projectMembershipPaths(req.db, project, today(req))), above: () => membershipsFrom(req.db, projectGroup(req.db, project)?.id) };
}

/** The direct memberships of a group and of each group above it (none without a group). */
const membershipsFrom = (db: Db, groupId: number | null = null): Member[] => groupChain(db, groupId).flatMap((g) => directMembers(db, 'group', g.id));

/** One membership per user: the highest access level wins (the nearest source on a tie). */
function effective(list: Member[]): Member[] {
  const best = new Map<number, Member>();
  for (const member of list) {
    const current = best.get(member.user_id);
    if (!current || member.access_level > current.access_level) best.set(member.user_id, member);
  }
  return [...best.values()];
}

/** A membership as the service presents it: the user's basic fields, then the membership's (created_by only when known). */
function presentMember(req: SandboxRequest, member: Member, user: User = users(req.db).find((u) => u.id === member.user_id)!): Record<string, unknown> {
  const creator = member.created_by_id === undefined ? undefined : users(req.db).find((u) => u.id === member.created_by_id);
  return presentRecord(declared, member, {
    ...presentUserBasic(user, req.rootUrl),
    created_at: member.created_at ?? user.created_at,
    created_by: creator ? presentUserBasic(creator, req.rootUrl) : undefined,
    membership_state: 'active',
  });
}

/** The list filters: query (name or username), user_ids, skip_users; expired memberships are gone. */
function filterMembers(req: SandboxRequest, list: Member[]): Array<[Member, User]> {
  const q = req.query;
  const ids = intList(q.user_ids, 'user_ids');
  const skip = intList(q.skip_users, 'skip_users');
  return inForce(req, list)
    .map((m): [Member, User | undefined] => [m, users(req.db).find((u) => u.id === m.user_id)])
    .filter((pair): pair is [Member, User] => pair[1] !== undefined)
    .filter(([, u]) => (!q.query || matches(q.query, u.name, u.username)) && (!ids || ids.includes(u.id)) && !skip?.includes(u.id));
}

function findMember(req: SandboxRequest, list: Member[], raw: string): Member {
  return found(inForce(req, list).find((m) => String(m.user_id) === raw), 'Member');
}

/** The access_level a create or an update needs: one of the roles. */
function accessLevel(req: SandboxRequest): number {
  const level = int(required(req, 'access_level'), 'access_level')!;
  if (!ACCESS_LEVELS.includes(level)) throw errors.invalid('access_level');
  return level;
}

function expiresAt(req: SandboxRequest): string | null | undefined {
  const value = req.input.expires_at;
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  const text = String(value);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(text))) throw errors.invalid('expires_at');
  if (text < req.now().toISOString().slice(0, 10)) throw errors.validation({ expires_at: ['cannot be a date in the past'] });
  return text;
}

/** Only an owner grants or changes the Owner role, or changes an owner's membership. */
function checkOwnerRights(source: Source, levels: Array<number | undefined>): void {
  if (levels.some((level) => level === Role.owner) && source.role < Role.owner) throw errors.forbidden();
}

/** A role as the service's messages name it: "Developer". */
function roleWord(level: number): string {
  const name = Object.entries(Role).find(([, value]) => value === level)?.[0];
  return name ? titleCase(name) : String(level);
}

/**
 * A direct membership may not be below the access the user inherits from a group above (the service's validation:
 * 400 with `access_level: ["should be greater than or equal to Developer inherited membership from group Acme"]`).
 */
function checkInherited(req: SandboxRequest, source: Source, userId: number, level: number): void {
  const inherited = source.above().filter((m) => m.user_id === userId).sort((a, b) => b.access_level - a.access_level)[0];
  if (!inherited || level >= inherited.access_level) return;
  const group = groupById(req.db, inherited.source_id);
  throw errors.validation({ access_level: [`should be greater than or equal to ${roleWord(inherited.access_level)} inherited membership from group ${group?.name ?? ''}`] });
}

function isLastOwner(db: Db, source: Source, member: Member): boolean {
  if (source.type !== 'group' || member.access_level !== Role.owner) return false;
  const group = groupById(db, source.id)!;
  return group.parent_id === null && directMembers(db, 'group', source.id).filter((m) => m.access_level === Role.owner).length === 1;
}

/** The subgroups below a group, at any depth, and the projects in it and in them, by id. */
function placesBelow(db: Db, groupId: number): { subgroups: Set<number>; inside: Set<number> } {
  const subgroups = new Set(descendantGroups(db, groupId).map((g) => g.id));
  const inside = new Set(projects(db).filter((p) => p.namespace_id === groupId || subgroups.has(p.namespace_id)).map((p) => p.id));
  return { subgroups, inside };
}

/** The user's direct memberships of the subgroups below a group, at any depth, and of the projects in it and in them. */
function membershipsBelow(db: Db, groupId: number, userId: number): Member[] {
  const { subgroups, inside } = placesBelow(db, groupId);
  return members(db).filter((m) => m.user_id === userId && (m.source_type === 'group' ? subgroups.has(m.source_id) : inside.has(m.source_id)));
}

/** The direct memberships of a group, of its subgroups at any depth and of the projects in them. */
function membershipsIn(db: Db, group: Group): Member[] {
  const { subgroups, inside } = placesBelow(db, group.id);
  return members(db).filter((m) => (m.source_type === 'group' ? m.source_id === group.id || subgroups.has(m.source_id) : inside.has(m.source_id)));
}

/**
 * The users a top-level group bills (the service's billed_user_ids, guests counted as on a self-managed instance):
 * active humans who are direct members of it, of a subgroup or of a project in them, or members of a group any of
 * those is shared with.
 */
function billedUsers(db: Db, group: Group): Set<number> {
  const { subgroups, inside } = placesBelow(db, group.id);
  const places = [group, ...[...subgroups].map((id) => groupById(db, id)!), ...[...inside].map((id) => projectById(db, id)!)];
  const direct = membershipsIn(db, group);
  const shared = places.flatMap((place) => place.shared_with_groups.flatMap((link) => directMembers(db, 'group', link.group_id)));
  const billable = new Set(users(db).filter(isBillable).map((u) => u.id));
  return new Set([...direct, ...shared].map((m) => m.user_id).filter((id) => billable.has(id)));
}

/** A membership as the billable member's memberships present it: where (by id, full name and members page), when, what role. */
function presentHierarchyMembership(req: SandboxRequest, member: Member): Record<string, unknown> {
  const group = member.source_type === 'group' ? groupById(req.db, member.source_id)! : undefined;
  const project = member.source_type === 'project' ? projectById(req.db, member.source_id)! : undefined;
  return {
    // Memberships have no ids of their own here: their place in the table stands in for one.
    id: members(req.db).indexOf(member) + 1,
    source_id: member.source_id,
    source_full_name: group ? fullName(req.db, group) : `${fullName(req.db, projectGroup(req.db, project!)!)} / ${project!.name}`,
    source_members_url: group ? `${req.rootUrl}/groups/${group.full_path}/-/group_members` : `${req.rootUrl}/${project!.path_with_namespace}/-/project_members`,
    created_at: member.created_at ?? null,
    expires_at: member.expires_at ?? null,
    access_level: { string_value: roleWord(member.access_level), integer_value: member.access_level },
  };
}

function memberRoutes(api: Router, type: SourceType): void {
  const routes = declared.parents[type].routes;
  // Reads: the direct members, the members with those inherited, and one of each.
  api.route(routes.list, (req) => paginate(req, filterMembers(req, directMembers(req.db, type, sourceOf(req, type).id)), { present: ([m, u]) => presentMember(req, m, u) }));

  api.route(routes.all, (req) => {
    const source = sourceOf(req, type);
    return paginate(req, filterMembers(req, effective(source.inherited())), { present: ([m, u]) => presentMember(req, m, u) });
  });

  api.route(routes.allGet, (req) => {
    const member = findMember(req, effective(sourceOf(req, type).inherited()), req.params.user_id);
    return ok(presentMember(req, member));
  });

  api.route(routes.get, (req) => {
    const member = findMember(req, directMembers(req.db, type, sourceOf(req, type).id), req.params.user_id);
    return ok(presentMember(req, member));
  });
  // Writes
  api.route(routes.create, (req) => addMembers(req, type));
  api.route(routes.update, (req) => updateMember(req, type));
  api.route(routes.delete, (req) => removeMember(req, type));
}

/** Adds one user (user_id or username) or several (separated by commas: those not members yet, answered with a status). */
function addMembers(req: SandboxRequest, type: SourceType) {
  const source = sourceOf(req, type, Role.maintainer);
  const level = accessLevel(req);
  checkOwnerRights(source, [level]);
  const expires = expiresAt(req);
  // user_id (one id, or several separated by commas) or username.
  const wanted = req.input.user_id !== undefined && req.input.user_id !== ''
    ? String(req.input.user_id).split(',').map((id) => users(req.db).find((u) => String(u.id) === id.trim()))
    : req.input.username !== undefined ? String(req.input.username).split(',').map((name) => users(req.db).find((u) => u.username.toLowerCase() === name.trim().toLowerCase()))
      : undefined;
  if (!wanted) throw errors.error(400, 'user_id, username are missing, exactly one parameter must be provided');
  if (wanted.some((u) => u === undefined)) throw errors.notFound('User');
  const existing = directMembers(req.db, type, source.id);
  if (wanted.length === 1 && existing.some((m) => m.user_id === wanted[0]!.id)) throw errors.message(409, 'Member already exists');
  if (wanted.length === 1) checkInherited(req, source, wanted[0]!.id, level);
  const at = req.now().toISOString();
  const added = wanted.filter((u) => !existing.some((m) => m.user_id === u!.id)).map((u): Member => ({
    source_type: type, source_id: source.id, user_id: u!.id, access_level: level, created_at: at, created_by_id: requireUser(req).id, expires_at: expires ?? null,
  }));
  members(req.db).push(...added);
  if (wanted.length > 1) return created({ status: 'success' });
  return created(presentMember(req, added[0], wanted[0]!));
}

/** A new role (never below an inherited one; the last owner of a top-level group stays one) and expiry. */
function updateMember(req: SandboxRequest, type: SourceType) {
  const source = sourceOf(req, type, Role.maintainer);
  const member = findMember(req, directMembers(req.db, type, source.id), req.params.user_id);
  const level = accessLevel(req);
  checkOwnerRights(source, [level, member.access_level]);
  if (isLastOwner(req.db, source, member) && level !== Role.owner) throw errors.forbidden();
  checkInherited(req, source, member.user_id, level);
  member.access_level = level;
  const expires = expiresAt(req);
  if (expires !== undefined) member.expires_at = expires;
  return ok(presentMember(req, member));
}

function removeMember(req: SandboxRequest, type: SourceType) {
  const source = sourceOf(req, type, Role.maintainer);
  const member = findMember(req, directMembers(req.db, type, source.id), req.params.user_id);
  checkOwnerRights(source, [member.access_level]);
  if (isLastOwner(req.db, source, member)) throw errors.forbidden();
  // A group's removal takes the user's direct memberships of its subgroups and projects along, unless skip_subresources.
  const below = type === 'group' && !bool(req.input.skip_subresources) ? membershipsBelow(req.db, source.id, member.user_id) : [];
  for (const gone of [member, ...below]) members(req.db).splice(members(req.db).indexOf(gone), 1);
  // The bot user of this group's or project's access token takes its token along: the service revokes it.
  const bot = users(req.db).find((user) => user.id === member.user_id)?.bot_of;
  if (bot?.type === type && bot.id === source.id) for (const token of tokens(req.db)) if (token.user_id === member.user_id) token.revoked = true;
  // unassign_issuables is taken and has nothing to do here: the sandbox's issues and merge requests have no assignees.
  return noContent();
}

export const membersModule: SandboxModule = {
  seedAfter: ['fleet', 'access-tokens'],
  seed: seedMembers,
  routes(api) {
    memberRoutes(api, 'group');
    memberRoutes(api, 'project');

    // A user's direct memberships of a top-level group, its subgroups and their projects: for its Owners (400 for
    // anyone else and for a subgroup, as the service answers), for the users it bills (404 for any other).
    api.route(declared.parents.group.routes.hierarchyMemberships, (req) => {
      const group = groupFor(req);
      if (groupRole(req.db, req.user, group) < Role.owner || group.parent_id !== null) throw errors.message(400, '400 Bad request');
      if (!/^\d+$/.test(req.params.user_id)) throw errors.error(400, 'user_id is invalid');
      const user = found(users(req.db).find((u) => u.id === Number(req.params.user_id)));
      if (!billedUsers(req.db, group).has(user.id)) throw errors.notFound('User');
      return paginate(req, membershipsIn(req.db, group).filter((m) => m.user_id === user.id), { present: (m) => presentHierarchyMembership(req, m) });
    });

    // The direct memberships of a user (administrators): groups as "Namespace", and projects.
    api.route(declaredUsers.routes.memberships, (req) => {
      requireAdmin(req);
      const user = found(users(req.db).find((u) => String(u.id) === req.params.user), 'User');
      const type = req.query.type;
      if (type !== undefined && type !== 'Project' && type !== 'Namespace') throw errors.invalid('type');
      const list = members(req.db).filter((m) => m.user_id === user.id && (type === undefined || (type === 'Project') === (m.source_type === 'project')));
      return paginate(req, list, {
        present: (m) => {
          const source = m.source_type === 'group' ? groupById(req.db, m.source_id) : projectById(req.db, m.source_id);
          return {
            source_id: m.source_id,
            source_name: source?.name ?? '',
            source_type: m.source_type === 'group' ? 'Namespace' : 'Project',
            access_level: m.access_level,
          };
        },
      });
    });
  },
};

export { membersModule as members };

/**
 * Members at several levels, seeded after the fleet (whose projects get them) and the access tokens' bot users (so
 * their ids stay as they were; no groups or projects are added): priya is a Guest in acme and a Maintainer of acme/api (a direct level above the
 * inherited one), omar a Reporter of acme/web only (expiring), a service account (a bot) a Reporter in acme. With
 * `--fleet N`, priya is a Maintainer of every team subgroup (acme → acme/team-NN → its projects) and omar a
 * Developer of every fleet project.
 */
function seedMembers(db: Db, { seed, fleet = 0, now }: SeedContext): void {
    if (seed !== 'demo') return;
    const acme = findGroup(db, 'acme');
    const at = now.toISOString();
    const priya = addUser(db, { username: 'priya', name: 'Priya Platform' }, now);
    const omar = addUser(db, { username: 'omar', name: 'Omar Contractor' }, now);
    const service = addUser(db, { username: 'service_account_deploy', name: 'Deploy service account', bot: true, user_type: 'service_account' }, now);
    const project = (path: string) => projects(db).find((p) => p.path_with_namespace === path);
    members(db).push(
      { source_type: 'group', source_id: acme.id, user_id: priya.id, access_level: Role.guest, created_at: at },
      { source_type: 'group', source_id: acme.id, user_id: service.id, access_level: Role.reporter, created_at: at },
      { source_type: 'project', source_id: project('acme/api')!.id, user_id: priya.id, access_level: Role.maintainer, created_at: at },
      { source_type: 'project', source_id: project('acme/web')!.id, user_id: omar.id, access_level: Role.reporter, created_at: at, expires_at: isoDate(now, 90) },
    );
    const teams = new Set<number>();
    for (let n = 1; n <= fleet; n++) {
      const fleetProject = project(fleetProjectPath(n));
      if (!fleetProject) continue;
      members(db).push({ source_type: 'project', source_id: fleetProject.id, user_id: omar.id, access_level: Role.developer, created_at: at });
      const team = groups(db).find((g) => g.full_path === fleetProjectPath(n).split('/').slice(0, 2).join('/'));
      if (team && !teams.has(team.id)) {
        teams.add(team.id);
        members(db).push({ source_type: 'group', source_id: team.id, user_id: priya.id, access_level: Role.maintainer, created_at: at });
      }
    }
}

