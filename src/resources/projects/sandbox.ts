import { findGroup, groupFor, groupRole, memberRoleInProject, projectFor, projectVisible, requireAdmin, requireUser, userFor, ACCESS_LEVELS, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { descendantGroups, groupById, groupChain, projectGroup } from '../../sandbox/hierarchy.js';
import { array, bool, created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { matches, ordering, parameterize, pathProblem, renameDraft, sortRecords, visibilityFrom, withinTimes } from '../../sandbox/listing.js';
import {
  groups, members, NEW_PROJECT, projects, userNamespaceId, users, USER_NAMESPACE_BASE, VISIBILITIES,
  type Group, type Project, type User, type Visibility,
} from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { protectDefaultBranch } from '../../sandbox/protection.js';
import { paginate } from '../../sandbox/pagination.js';
import { FEATURE_SWITCHES, presentGroup, presentProject } from '../../sandbox/present.js';
import { repositoryOf, seedCommit } from '../../sandbox/git/repository.js';
import { addProject } from '../../sandbox/seed.js';
import { applyAvatar, avatarFrom } from '../../sandbox/avatars.js';
import { deleteOrMark, deleteProjectNow, unmarkDeletion } from '../../sandbox/deletion.js';
import { settleStorageMoves } from '../../sandbox/storage-moves.js';
import { groups as declaredGroups } from '../groups/resource.js';
import { projects as declared } from './resource.js';
import { members as memberships } from '../members/resource.js';
import { found } from '../../sandbox/records.js';

/**
 * Projects: the lists (all visible, of a group with its subgroups, of a user) with the service's filters and offset
 * or keyset pagination, get, create (in a group or a personal namespace), update, archive, delete (delayed on
 * Premium and Ultimate), restore, sharing with groups, transfer, and the groups of a project.
 */

const placement = memberships.parents.project.routes;

const ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity', 'star_count'] as const;
const ADMIN_ORDER_BY = ['repository_size', 'storage_size', 'packages_size', 'wiki_size'];

/** The filters every project list shares, then ordering; the list answers with offset or keyset (order_by=id) pages. */
function listProjects(req: SandboxRequest, candidates: Project[]) {
  const q = req.query;
  const admin = Boolean(req.user?.is_admin);
  settleStorageMoves(req.db, req.now());
  let list = candidates.filter((p) => projectVisible(req, p));
  if (admin && q.repository_storage) list = list.filter((p) => p.repository_storage === String(q.repository_storage));
  const archived = bool(q.archived);
  if (archived !== undefined) list = list.filter((p) => Boolean(p.archived) === archived);
  if (bool(q.active)) list = list.filter((p) => !p.archived && !p.marked_for_deletion_on);
  if (q.visibility) {
    if (!VISIBILITIES.includes(q.visibility as Visibility)) throw errors.invalid('visibility');
    list = list.filter((p) => p.visibility === q.visibility);
  }
  if (q.search) {
    const withNamespace = bool(q.search_namespaces);
    list = list.filter((p) => matches(q.search, p.name, p.path, p.description, withNamespace ? p.path_with_namespace : undefined));
  }
  const user = req.user;
  if (bool(q.owned)) list = user ? list.filter((p) => memberRoleInProject(req.db, user, p) >= Role.owner) : [];
  if (bool(q.membership)) list = user ? list.filter((p) => memberRoleInProject(req.db, user, p) > 0) : [];
  if (bool(q.starred)) list = [];
  const minAccess = int(q.min_access_level, 'min_access_level');
  if (minAccess !== undefined) list = user ? list.filter((p) => memberRoleInProject(req.db, user, p) >= minAccess) : [];
  if (bool(q.with_issues_enabled)) list = list.filter((p) => p.issues_access_level !== 'disabled');
  if (bool(q.with_merge_requests_enabled)) list = list.filter((p) => p.merge_requests_access_level !== 'disabled');
  const topics = array(q.topic);
  if (topics?.length) list = list.filter((p) => topics.every((t) => (p.topics ?? []).some((topic) => topic.toLowerCase() === t.toLowerCase())));
  const idAfter = int(q.id_after, 'id_after');
  const idBefore = int(q.id_before, 'id_before');
  if (idAfter !== undefined) list = list.filter((p) => p.id > idAfter);
  if (idBefore !== undefined) list = list.filter((p) => p.id < idBefore);
  list = withinTimes(req, list, { last_activity: (p) => p.last_activity_at ?? p.created_at, updated: (p) => p.updated_at ?? p.created_at });
  if (q.marked_for_deletion_on) list = list.filter((p) => p.marked_for_deletion_on === String(q.marked_for_deletion_on));
  const { orderBy, sort } = ordering(req, admin ? [...ORDER_BY, ...ADMIN_ORDER_BY] : ORDER_BY, { orderBy: 'created_at', sort: 'desc' });
  const key = (p: Project): string | number | undefined => {
    if (orderBy === 'id') return p.id;
    if (orderBy === 'name' || orderBy === 'similarity') return p.name.toLowerCase();
    if (orderBy === 'path') return p.path;
    if (orderBy === 'updated_at') return p.updated_at ?? p.created_at;
    if (orderBy === 'last_activity_at') return p.last_activity_at ?? p.created_at;
    if (orderBy === 'created_at') return p.created_at;
    return 0; // sizes and stars: all zero in the sandbox
  };
  const statistics = bool(q.statistics);
  return paginate(req, sortRecords(list, key, sort), {
    keyset: { orderBy: ['id'], id: (p) => p.id },
    offsetLimit: 'Project',
    present: (p) => presentProject(req, p, { statistics }),
  });
}

/** The settings a create or an update takes, with the values a new project has (those after its place and state). */
const SETTINGS = Object.entries(NEW_PROJECT).slice(Object.keys(NEW_PROJECT).indexOf('packages_enabled'));

/** Settings of a create or update request; the old `*_enabled` switches set the matching access levels. */
function settingsFrom(req: SandboxRequest): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, initial] of SETTINGS) {
    const value = req.input[name];
    if (value === undefined) continue;
    if (name.endsWith('_access_level')) {
      if (!['disabled', 'private', 'enabled', 'public'].includes(String(value))) throw errors.invalid(name);
      settings[name] = String(value);
    } else if (typeof initial === 'boolean') settings[name] = value === null ? null : bool(value);
    else if (typeof initial === 'number') settings[name] = int(value, name);
    else settings[name] = value;
    // An empty value ("") leaves the setting as it is.
    if (settings[name] === undefined) delete settings[name];
  }
  for (const [name, feature] of FEATURE_SWITCHES) {
    const enabled = bool(req.input[name]);
    if (enabled !== undefined && req.input[`${feature}_access_level`] === undefined) settings[`${feature}_access_level`] = enabled ? 'enabled' : 'disabled';
  }
  if (req.input.emails_disabled !== undefined && req.input.emails_enabled === undefined) settings.emails_enabled = !bool(req.input.emails_disabled);
  if (settings.merge_method !== undefined && !['merge', 'rebase_merge', 'ff'].includes(String(settings.merge_method))) throw errors.invalid('merge_method');
  if (settings.squash_option !== undefined && !['never', 'always', 'default_on', 'default_off'].includes(String(settings.squash_option))) throw errors.invalid('squash_option');
  return settings;
}

function topicsFrom(req: SandboxRequest): string[] | undefined {
  const value = req.input.topics ?? req.input.tag_list;
  return value === undefined ? undefined : [...new Set(array(value)!.map((t) => t.trim()).filter(Boolean))];
}

/** Name and path of a project among the others of its namespace, as the service validates them. */
function projectProblems(db: Db, draft: { id: number; name: string; path: string; namespace_id: number; visibility: Visibility }): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const siblings = projects(db).filter((p) => p.namespace_id === draft.namespace_id && p.id !== draft.id);
  if (!draft.name.trim()) problems.name = ["can't be blank"];
  else if (!/^[\p{L}\p{N}_][\p{L}\p{N}_. +-]*$/u.test(draft.name)) {
    problems.name = ["can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'."];
  } else if (siblings.some((p) => p.name.toLowerCase() === draft.name.toLowerCase())) problems.name = ['has already been taken'];
  const pathIssue = pathProblem(draft.path);
  if (pathIssue) problems.path = [pathIssue];
  else if (siblings.some((p) => p.path.toLowerCase() === draft.path.toLowerCase())) problems.path = ['has already been taken'];
  const group = draft.namespace_id > USER_NAMESPACE_BASE ? undefined : groupById(db, draft.namespace_id);
  if (group && VISIBILITIES.indexOf(draft.visibility) > VISIBILITIES.indexOf(group.visibility)) {
    problems.visibility_level = [`${draft.visibility} is not allowed in a ${group.visibility} group.`];
  }
  return problems;
}

/** The namespace a new or transferred project goes to: a group (id or path) or a personal namespace (id or username). */
function namespaceFrom(req: SandboxRequest, value: unknown, user: User): { id: number; group?: Group; owner?: User } {
  if (value === undefined || value === null || value === '') return { id: userNamespaceId(user), owner: user };
  const text = String(value);
  const numeric = /^\d+$/.test(text) ? Number(text) : undefined;
  const owner = numeric !== undefined && numeric > USER_NAMESPACE_BASE
    ? users(req.db).find((u) => userNamespaceId(u) === numeric)
    : numeric === undefined ? users(req.db).find((u) => u.username.toLowerCase() === text.toLowerCase()) : undefined;
  if (owner) {
    if (owner.id !== user.id && !user.is_admin) throw errors.notFound('Namespace');
    return { id: userNamespaceId(owner), owner };
  }
  const group = groups(req.db).find((g) => (numeric !== undefined ? g.id === numeric : g.full_path.toLowerCase() === text.toLowerCase()));
  if (!group || groupRole(req.db, user, group) === 0) throw errors.notFound('Namespace');
  return { id: group.id, group };
}

/** Who may create projects in a group: its project_creation_level (Developers by default), administrators always. */
function canCreateIn(req: SandboxRequest, user: User, group: Group): boolean {
  if (user.is_admin) return true;
  const level = group.project_creation_level;
  const needed = { noone: Infinity, administrator: Infinity, owner: Role.owner, maintainer: Role.maintainer, developer: Role.developer }[level] ?? Role.developer;
  return groupRole(req.db, user, group) >= needed;
}

function createProject(req: SandboxRequest, user: User, namespaceValue: unknown) {
  const nameInput = req.input.name === undefined || req.input.name === null ? undefined : String(req.input.name);
  const pathInput = req.input.path === undefined || req.input.path === null ? undefined : String(req.input.path);
  if (!nameInput && !pathInput) throw errors.error(400, 'name, path are missing, at least one parameter must be provided');
  const namespace = namespaceFrom(req, namespaceValue ?? req.input.namespace_id ?? req.input.namespace_path, user);
  if (namespace.group && !canCreateIn(req, user, namespace.group)) throw errors.forbidden();
  const name = nameInput ?? pathInput!;
  const path = pathInput ?? parameterize(name);
  const visibility = visibilityFrom(req) ?? 'private';
  const problems = projectProblems(req.db, { id: 0, name, path, namespace_id: namespace.id, visibility });
  if (Object.keys(problems).length) throw errors.validation(problems);
  const avatar = avatarFrom(req) ?? undefined;
  const project = addProject(req.db, {
    name, path, namespace_id: namespace.id, visibility, creator_id: req.user!.id,
    description: req.input.description === undefined ? null : String(req.input.description),
    default_branch: req.input.default_branch ? String(req.input.default_branch) : 'main',
    topics: topicsFrom(req) ?? [],
    ...settingsFrom(req),
  }, req.now());
  if (avatar) project.avatar = avatar;
  // Someone allowed to create below Maintainer (project_creation_level) becomes a Maintainer of the new project.
  if (namespace.group && groupRole(req.db, req.user, namespace.group) < Role.maintainer) {
    members(req.db).push({ source_type: 'project', source_id: project.id, user_id: user.id, access_level: Role.maintainer, created_at: project.created_at, created_by_id: user.id });
  }
  if (bool(req.input.initialize_with_readme)) {
    const commit = seedCommit(req.db, project.id, undefined, 'Initial commit', { 'README.md': `# ${project.name}\n` }, req.now(), { name: req.user!.name, email: req.user!.email });
    repositoryOf(req.db, project.id).branches[project.default_branch] = commit.id;
    protectDefaultBranch(req.db, project);
  }
  return created(presentProject(req, project, { permissions: true }));
}

/** Premium and Ultimate delay the deletion of projects in groups (they are marked and can be restored). */
const delaysDeletion = (req: SandboxRequest, project: Project): boolean => req.tier !== 'free' && projectGroup(req.db, project) !== undefined;

// Reads: the lists of projects, one project, and the groups of a project.

/** The projects of a group: its own, with include_subgroups its subgroups', and (unless with_shared=false) those shared with it. */
function listOfGroup(req: SandboxRequest) {
  const group = groupFor(req, 0);
  const ids = new Set([group.id, ...(bool(req.query.include_subgroups) ? descendantGroups(req.db, group.id).map((g) => g.id) : [])]);
  const withShared = bool(req.query.with_shared) ?? true;
  return listProjects(req, projects(req.db).filter((p) => ids.has(p.namespace_id) || (withShared && p.shared_with_groups?.some((l) => l.group_id === group.id))));
}

function listSharedWithGroup(req: SandboxRequest) {
  const group = groupFor(req, 0);
  return listProjects(req, projects(req.db).filter((p) => p.shared_with_groups?.some((l) => l.group_id === group.id)));
}

function listOfUser(req: SandboxRequest) {
  const user = userFor(req);
  return listProjects(req, projects(req.db).filter((p) => p.namespace_id === userNamespaceId(user)));
}

function getProject(req: SandboxRequest) {
  const project = projectFor(req);
  return ok(presentProject(req, project, { statistics: bool(req.query.statistics), permissions: true }));
}

/** The groups of a project: its group and that group's ancestors (and, with with_shared, the groups it is shared with). */
function groupsOfProject(req: SandboxRequest) {
  const project = projectFor(req);
  const own = groupChain(req.db, projectGroup(req.db, project)?.id ?? null);
  const shared = bool(req.query.with_shared) ? (project.shared_with_groups ?? []).map((l) => groupById(req.db, l.group_id)).filter((g): g is Group => Boolean(g)) : [];
  let list = [...own, ...shared.filter((g) => !own.includes(g))];
  if (req.query.search) list = list.filter((g) => matches(req.query.search, g.name, g.path));
  return paginate(req, list, { present: (g) => presentGroup(req, g) });
}

// Writes: create and update.

/** Administrators create projects for other users, in their personal namespace by default. */
function createForUser(req: SandboxRequest) {
  requireAdmin(req);
  const owner = userFor(req);
  return createProject(req, owner, req.input.namespace_id ?? userNamespaceId(owner));
}

function updateProject(req: SandboxRequest) {
  const project = projectFor(req, Role.maintainer);
  const draft = { id: project.id, namespace_id: project.namespace_id, ...renameDraft(req, project) };
  const problems = projectProblems(req.db, draft);
  if (Object.keys(problems).length) throw errors.validation(problems);
  // The default branch must be a branch of the repository (an empty repository takes any name).
  const branches = Object.keys(repositoryOf(req.db, project.id).branches);
  const wantedBranch = req.input.default_branch ? String(req.input.default_branch) : undefined;
  if (wantedBranch && branches.length && !branches.includes(wantedBranch)) {
    throw errors.message(400, `Could not set the default branch. Do you have a branch named '${wantedBranch}' in your repository?`);
  }
  applyAvatar(req, project);
  const topics = topicsFrom(req);
  Object.assign(project, {
    name: draft.name,
    path: draft.path,
    path_with_namespace: `${project.path_with_namespace.slice(0, project.path_with_namespace.lastIndexOf('/'))}/${draft.path}`,
    visibility: draft.visibility,
    ...settingsFrom(req),
    updated_at: req.now().toISOString(),
    ...(topics ? { topics } : {}),
    ...(req.input.description !== undefined ? { description: req.input.description === null ? null : String(req.input.description) } : {}),
    ...(req.input.default_branch ? { default_branch: String(req.input.default_branch) } : {}),
  });
  const archived = bool(req.input.archived);
  if (archived !== undefined) project.archived = archived;
  return ok(presentProject(req, project, { permissions: true }));
}

// State transitions: archive, delete, restore, transfer.

/** Archive (true) or unarchive (false): 201 with the project. */
const setArchived = (archived: boolean) => (req: SandboxRequest) => {
  const project = projectFor(req, Role.maintainer);
  project.archived = archived;
  project.updated_at = req.now().toISOString();
  return created(presentProject(req, project, { permissions: true }));
};

function deleteProject(req: SandboxRequest) {
  const project = projectFor(req, Role.owner);
  return deleteOrMark(req, project, { noun: 'Project', fullPath: project.path_with_namespace, delays: delaysDeletion(req, project), deleteNow: () => deleteProjectNow(req.db, project) });
}

function restoreProject(req: SandboxRequest) {
  const project = projectFor(req, Role.owner);
  unmarkDeletion(project, 'Project');
  return created(presentProject(req, project, { permissions: true }));
}

/** Moves the project to another group or personal namespace (namespace: id or path). */
function transferProject(req: SandboxRequest) {
  const project = projectFor(req, Role.owner);
  const user = requireUser(req);
  if (req.input.namespace === undefined || req.input.namespace === '') throw errors.missing('namespace');
  const target = namespaceFrom(req, req.input.namespace, user);
  if (target.group && groupRole(req.db, user, target.group) < Role.maintainer) throw errors.forbidden();
  if (target.id === project.namespace_id) throw errors.badRequest('Transfer failed: Project is already in this namespace.');
  const problems = projectProblems(req.db, { ...project, namespace_id: target.id });
  if (problems.name || problems.path) throw errors.badRequest('Transfer failed: Project with same name or path in target namespace already exists');
  project.namespace_id = target.id;
  project.path_with_namespace = `${target.group?.full_path ?? target.owner!.username}/${project.path}`;
  return ok(presentProject(req, project, { permissions: true }));
}

// Sharing with groups.

function shareProject(req: SandboxRequest) {
  const project = projectFor(req, Role.maintainer);
  const groupId = int(required(req, 'group_id'), 'group_id')!;
  const access = int(required(req, 'group_access'), 'group_access')!;
  if (!ACCESS_LEVELS.includes(access)) throw errors.invalid('group_access');
  const group = findGroup(req.db, String(groupId));
  if (groupRole(req.db, req.user, group) === 0 && group.visibility === 'private') throw errors.notFound('Group');
  if (project.shared_with_groups?.some((l) => l.group_id === group.id)) throw errors.message(409, 'Project is already shared with this group');
  const expiresAt = req.input.expires_at ? String(req.input.expires_at) : null;
  const link = { group_id: group.id, group_access_level: access, expires_at: expiresAt };
  project.shared_with_groups = [...(project.shared_with_groups ?? []), link];
  return created({ id: project.shared_with_groups.length, project_id: project.id, group_id: group.id, group_access: access, expires_at: expiresAt });
}

function unshareProject(req: SandboxRequest) {
  const project = projectFor(req, Role.maintainer);
  const link = found(project.shared_with_groups?.find((l) => String(l.group_id) === req.params.group_id), 'Group Link');
  project.shared_with_groups = project.shared_with_groups!.filter((l) => l !== link);
  return noContent();
}

export const projectsModule: SandboxModule = {
  routes(api) {
    const { routes } = declared;
    // Reads
    api.route(routes.list, (req) => listProjects(req, projects(req.db)), { auth: 'optional' });
    api.route(routes.ofGroup, listOfGroup, { auth: 'optional' });
    api.route(routes.sharedWithGroup, listSharedWithGroup, { auth: 'optional' });
    api.route(routes.ofUser, listOfUser, { auth: 'optional' });
    api.route(routes.get, getProject, { auth: 'optional' });
    api.route(declaredGroups.routes.ofProject, groupsOfProject);
    // Writes
    api.route(routes.create, (req) => createProject(req, requireUser(req), undefined));
    api.route(routes.createForUser, createForUser);
    api.route(routes.update, updateProject);
    // State transitions
    api.route(routes.archive, setArchived(true));
    api.route(routes.unarchive, setArchived(false));
    api.route(routes.delete, deleteProject);
    api.route(routes.restore, restoreProject);
    api.route(routes.transfer, transferProject);
    // Sharing with groups
    api.route(placement.share, shareProject);
    api.route(placement.unshare, unshareProject);
  },
};
