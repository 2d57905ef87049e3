import { findGroup, groupFor, groupRole, groupsAboveMemberProjects, groupVisible, memberRoleInGroup, projectFor, requireUser, ACCESS_LEVELS, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { descendantGroups, directMembers, groupById, refreshPaths } from '../../sandbox/hierarchy.js';
import { bool, created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { intList, matches, ordering, pathProblem, renameDraft, rubyErrors, sortRecords, visibilityFrom } from '../../sandbox/listing.js';
import { groups, members, NEW_GROUP, VISIBILITIES, type Group, type GroupLink, type Visibility } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentGroup } from '../../sandbox/present.js';
import { addGroup } from '../../sandbox/seed.js';
import { applyAvatar, avatarFrom } from '../../sandbox/avatars.js';
import { deleteGroupNow, deleteOrMark, unmarkDeletion } from '../../sandbox/deletion.js';
import { groups as declared } from './resource.js';
import { members as memberships } from '../members/resource.js';
import { found } from '../../sandbox/records.js';

/**
 * Groups and subgroups: list (with search, skip_groups, ownership and access filters), get, create (subgroups with
 * parent_id), update, delete (delayed on Premium and Ultimate, as the service's delayed deletion), restore,
 * subgroups, descendant groups, sharing with other groups, and transfer.
 */

const placement = memberships.parents.group.routes;

const visibilityRank = (v: Visibility): number => VISIBILITIES.indexOf(v);

const LIST_ORDER = ['name', 'path', 'id', 'similarity'] as const;

/** The filters shared by /groups, /groups/:group/subgroups and /groups/:group/descendant_groups. */
function filterGroups(req: SandboxRequest, list: Group[]): Group[] {
  const q = req.query;
  const admin = Boolean(req.user?.is_admin);
  // Others see the groups they belong to and those above their projects; all_available adds the public and internal
  // ones. Administrators see all.
  const allAvailable = bool(q.all_available) ?? (admin || !req.user);
  const mine = (g: Group) => groupRole(req.db, req.user, g) > 0 || groupsAboveMemberProjects(req).has(g.id);
  list = list.filter((g) => (admin ? true : allAvailable ? groupVisible(req, g) : mine(g)));
  if (q.search) list = list.filter((g) => matches(q.search, g.name, g.path));
  const skip = intList(q.skip_groups, 'skip_groups');
  if (skip) list = list.filter((g) => !skip.includes(g.id));
  // Owned: groups the caller is a direct Owner of (an administrator's implicit rights do not count).
  if (bool(q.owned)) list = list.filter((g) => req.user !== undefined && directRole(req.db, req.user.id, g) >= Role.owner);
  const minAccess = int(q.min_access_level, 'min_access_level');
  if (minAccess !== undefined) list = list.filter((g) => req.user !== undefined && memberRoleInGroup(req.db, req.user, g) >= minAccess);
  if (bool(q.top_level_only)) list = list.filter((g) => g.parent_id === null);
  if (q.visibility) {
    if (!VISIBILITIES.includes(q.visibility as Visibility)) throw errors.invalid('visibility');
    list = list.filter((g) => g.visibility === q.visibility);
  }
  const archived = bool(q.archived);
  if (archived !== undefined) list = list.filter((g) => Boolean(g.archived) === archived);
  const marked = q.marked_for_deletion_on;
  if (marked) list = list.filter((g) => g.marked_for_deletion_on === String(marked));
  const { orderBy, sort } = ordering(req, LIST_ORDER, { orderBy: 'name', sort: 'asc' });
  return sortRecords(list, (g) => (orderBy === 'id' ? g.id : orderBy === 'path' ? g.path : g.name), sort);
}

const directRole = (db: Db, userId: number, group: Group): number => directMembers(db, 'group', group.id).find((m) => m.user_id === userId)?.access_level ?? 0;

/** One group's answer (GroupDetail), as the caller sees it. */
const presentDetail = (req: SandboxRequest, group: Group) => presentGroup(req, group, { admin: Boolean(req.user?.is_admin), detail: true });

function listGroups(req: SandboxRequest, list: Group[]) {
  const admin = Boolean(req.user?.is_admin);
  return paginate(req, filterGroups(req, list), { present: (g) => presentGroup(req, g, { admin }) });
}

/** The groups a group's or project's links name, in the links' order. */
const invitedGroups = (req: SandboxRequest, links: GroupLink[] | undefined): Group[] => (links ?? []).flatMap((link) => groups(req.db).filter((g) => g.id === link.group_id));

/** The settings a create or an update takes, with the values a new group has (those after its place and state). */
const SETTINGS = Object.entries(NEW_GROUP).slice(Object.keys(NEW_GROUP).indexOf('share_with_group_lock'));

/** Settings of a create or update request, checked as the service checks them. */
function settingsFrom(req: SandboxRequest): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, initial] of SETTINGS) {
    const value = req.input[name];
    if (value === undefined) continue;
    if (typeof initial === 'boolean' || name.endsWith('_enabled')) settings[name] = value === null ? null : bool(value);
    else if (typeof initial === 'number') settings[name] = int(value, name);
    else settings[name] = value;
    // An empty value ("") leaves the setting as it is.
    if (settings[name] === undefined) delete settings[name];
  }
  if (req.input.emails_disabled !== undefined) settings.emails_enabled = !bool(req.input.emails_disabled);
  const choices: Record<string, string[]> = {
    project_creation_level: ['noone', 'owner', 'maintainer', 'developer', 'administrator'],
    subgroup_creation_level: ['owner', 'maintainer'],
    shared_runners_setting: ['enabled', 'disabled_and_overridable', 'disabled_and_unoverridable', 'disabled_with_override'],
    wiki_access_level: ['disabled', 'private', 'enabled'],
  };
  for (const [name, allowed] of Object.entries(choices)) {
    if (settings[name] !== undefined && !allowed.includes(String(settings[name]))) throw errors.invalid(name);
  }
  return settings;
}

/** Validation of a group's name, path and visibility among its siblings and under its parent. */
function groupProblems(db: Db, group: Pick<Group, 'id' | 'name' | 'path' | 'parent_id' | 'visibility'>): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const siblings = groups(db).filter((g) => g.parent_id === group.parent_id && g.id !== group.id);
  if (!group.name.trim()) problems.name = ["can't be blank"];
  else if (siblings.some((g) => g.name.toLowerCase() === group.name.toLowerCase())) problems.name = ['has already been taken'];
  const pathIssue = pathProblem(group.path);
  if (pathIssue) problems.path = [pathIssue];
  else if (siblings.some((g) => g.path.toLowerCase() === group.path.toLowerCase())) problems.path = ['has already been taken'];
  const parent = groupById(db, group.parent_id);
  if (parent && visibilityRank(group.visibility) > visibilityRank(parent.visibility)) {
    problems.visibility_level = [`${group.visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`];
  }
  const children = groups(db).filter((g) => g.parent_id === group.id);
  if (children.some((child) => visibilityRank(child.visibility) > visibilityRank(group.visibility))) {
    problems.visibility_level = [`${group.visibility} is not allowed since there are sub-groups with higher visibility.`];
  }
  return problems;
}

/** Premium and Ultimate delay deletion (the group is marked and restorable); the free tier deletes at once. */
const delaysDeletion = (req: SandboxRequest): boolean => req.tier !== 'free';

// Reads: lists of groups (all, subgroups, descendants, shared and invited) and one group.

function listSubgroups(req: SandboxRequest) {
  const group = groupFor(req);
  return listGroups(req, groups(req.db).filter((g) => g.parent_id === group.id));
}

/** The groups this group was invited to (those shared with it). */
function listSharedWith(req: SandboxRequest) {
  const group = groupFor(req);
  return listGroups(req, groups(req.db).filter((g) => g.shared_with_groups?.some((l) => l.group_id === group.id)));
}

// Writes: create and update.

/** A top-level group (if the user may create groups) or a subgroup (by the parent's subgroup_creation_level); its creator owns it. */
function createGroup(req: SandboxRequest) {
  const user = requireUser(req);
  const name = String(required(req, 'name'));
  const path = String(required(req, 'path'));
  const parentId = int(req.input.parent_id, 'parent_id') ?? null;
  if (parentId !== null) {
    const parent = findGroup(req.db, String(parentId));
    if (!groupVisible(req, parent)) throw errors.notFound('Group');
    const level = parent.subgroup_creation_level === 'owner' ? Role.owner : Role.maintainer;
    if (groupRole(req.db, user, parent) < level) throw errors.forbidden();
  } else if (!user.is_admin && user.can_create_group === false) {
    throw errors.forbidden();
  }
  const draft = { id: 0, name, path, parent_id: parentId, visibility: visibilityFrom(req) ?? 'private' };
  const problems = groupProblems(req.db, draft);
  if (Object.keys(problems).length) throw errors.message(400, `Failed to save group ${rubyErrors(problems)}`);
  const avatar = avatarFrom(req) ?? undefined;
  const group = addGroup(req.db, {
    name, path, parent_id: parentId, visibility: draft.visibility, description: String(req.input.description ?? ''), ...settingsFrom(req),
  }, req.now());
  if (avatar) group.avatar = avatar;
  // The creator becomes an owner of the group.
  members(req.db).push({ source_type: 'group', source_id: group.id, user_id: user.id, access_level: Role.owner, created_at: group.created_at, created_by_id: user.id });
  return created(presentDetail(req, group));
}

function updateGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  const draft = { id: group.id, parent_id: group.parent_id, ...renameDraft(req, group) };
  const problems = groupProblems(req.db, draft);
  if (Object.keys(problems).length) throw errors.validation(problems);
  applyAvatar(req, group);
  const settings = settingsFrom(req);
  Object.assign(group, { name: draft.name, visibility: draft.visibility, ...settings });
  if (req.input.description !== undefined) group.description = String(req.input.description ?? '');
  if (draft.path !== group.path) {
    group.path = draft.path;
    refreshPaths(req.db, group);
  }
  return ok(presentDetail(req, group));
}

// State transitions: delete, restore, transfer.

function deleteGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  return deleteOrMark(req, group, { noun: 'Group', fullPath: group.full_path, delays: delaysDeletion(req), deleteNow: () => deleteGroupNow(req.db, group) });
}

function restoreGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  unmarkDeletion(group, 'Group');
  return created(presentDetail(req, group));
}

/** Moves a group under another (group_id) or to the top level (no group_id). */
function transferGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  const targetId = int(req.input.group_id, 'group_id');
  const target = targetId === undefined ? undefined : findGroup(req.db, String(targetId));
  if (target) {
    if (groupRole(req.db, req.user, target) < Role.owner) throw errors.forbidden();
    if (target.id === group.id || descendantGroups(req.db, group.id).some((g) => g.id === target.id)) {
      throw errors.badRequest('Transfer failed: Cannot transfer group to one of its subgroup.');
    }
  }
  const draft = { ...group, parent_id: target?.id ?? null };
  const problems = groupProblems(req.db, draft);
  if (problems.path || problems.name) throw errors.badRequest('Transfer failed: The parent group already has a subgroup or a project with the same path.');
  group.parent_id = draft.parent_id;
  refreshPaths(req.db, group);
  return created(presentDetail(req, group));
}

// Sharing with other groups.

function shareGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  const sharedWith = findGroup(req.db, String(required(req, 'group_id')));
  const access = int(required(req, 'group_access'), 'group_access')!;
  if (!ACCESS_LEVELS.includes(access)) throw errors.invalid('group_access');
  if (!groupVisible(req, sharedWith)) throw errors.notFound('Group');
  if (group.shared_with_groups?.some((l) => l.group_id === sharedWith.id)) throw errors.message(409, 'The group has already been shared with this group');
  group.shared_with_groups = [...(group.shared_with_groups ?? []), { group_id: sharedWith.id, group_access_level: access, expires_at: (req.input.expires_at as string | undefined) ?? null }];
  return created(presentDetail(req, group));
}

function unshareGroup(req: SandboxRequest) {
  const group = groupFor(req, Role.owner);
  const link = found(group.shared_with_groups?.find((l) => String(l.group_id) === req.params.group_id), 'Group Link');
  group.shared_with_groups = group.shared_with_groups!.filter((l) => l !== link);
  return noContent();
}

export const groupsModule: SandboxModule = {
  routes(api) {
    const { routes } = declared;
    // Reads
    api.route(routes.list, (req) => listGroups(req, groups(req.db)), { auth: 'optional' });
    api.route(routes.get, (req) => ok(presentDetail(req, groupFor(req))), { auth: 'optional' });
    api.route(routes.subgroups, listSubgroups, { auth: 'optional' });
    api.route(routes.descendants, (req) => listGroups(req, descendantGroups(req.db, groupFor(req).id)), { auth: 'optional' });
    api.route(routes.sharedWith, listSharedWith, { auth: 'optional' });
    api.route(routes.invited, (req) => listGroups(req, invitedGroups(req, groupFor(req).shared_with_groups)), { auth: 'optional' });
    api.route(routes.invitedToProject, (req) => listGroups(req, invitedGroups(req, projectFor(req).shared_with_groups)), { auth: 'optional' });
    // Writes
    api.route(routes.create, createGroup);
    api.route(routes.update, updateGroup);
    // State transitions
    api.route(routes.delete, deleteGroup);
    api.route(routes.restore, restoreGroup);
    api.route(routes.transfer, transferGroup);
    // Sharing with other groups
    api.route(placement.share, shareGroup);
    api.route(placement.unshare, unshareGroup);
  },
};

export { groupsModule as groups };
