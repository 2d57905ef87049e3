import { groupRole, projectRole, projectVisible, Role } from './auth.js';
import type { Db } from './db.js';
import { fullName, groupById, namespaceOwner, projectGroup } from './hierarchy.js';
import { bool, type SandboxRequest } from './http.js';
import { presentRecord, type Values } from './records.js';
import type { Field } from '../api/fields.js';
import { groups as groupDeclaration, SHARED_GROUP_FIELDS } from '../resources/groups/resource.js';
import { NAMESPACE_FIELDS, projects as projectDeclaration } from '../resources/projects/resource.js';
import { USER_FIELDS } from '../resources/users/resource.js';
import { avatarUrl, commits, issues, members, projects, repositories, type Group, type GroupLink, type Project, type User, userAvatarUrl } from './model.js';

/** JSON views of core records, shared by the route modules. */

const BASIC_USER = { fields: USER_FIELDS };
/** A user as the service shows one anywhere (an author, a member, the list of users), as its declaration presents it. */
export const presentUserBasic = (user: User, rootUrl: string): Values => 
  presentRecord(BASIC_USER, user, { locked: false, avatar_url: userAvatarUrl(user, rootUrl), web_url: `${rootUrl}/${user.username}` });

export interface GroupView {
  /** The caller administers the instance (sees repository_storage). */
  admin?: boolean;
  /** The single-group view (GroupDetail): shared groups, the runners token for owners, its projects and those shared with it. */
  detail?: boolean;
}

const groupFields = Object.keys(groupDeclaration.fields);
/** A group in a list (the service's Group): without the fields only the single-group answer has, shared_with_groups on. */
const LISTED_GROUP = { fields: groupDeclaration.fields, without: groupFields.slice(groupFields.indexOf('shared_with_groups')) };

/** A group as the service presents it (src/resources/groups/resource.ts), with what the service derives. */
export function presentGroup(req: SandboxRequest, group: Group, view: GroupView = {}): Record<string, unknown> {
  return presentRecord(view.detail ? groupDeclaration : LISTED_GROUP, group, {
    web_url: `${req.rootUrl}/groups/${group.full_path}`,
    emails_disabled: !group.emails_enabled,
    avatar_url: avatarUrl(req.rootUrl, 'group', group),
    full_name: fullName(req.db, group),
    organization_id: 1,
    repository_storage: view.admin ? 'default' : undefined,
    ...(view.detail && groupDetails(req, group)),
  });
}

/** What one group's answer has beyond a list's: its own projects and those shared with it (the service caps each at 100). */
function groupDetails(req: SandboxRequest, group: Group): Record<string, unknown> {
  const withProjects = bool(req.query.with_projects) ?? true;
  const listed = (wanted: (project: Project) => boolean) => (withProjects ? projects(req.db).filter((p) => wanted(p) && projectVisible(req, p)).slice(0, 100) : []);
  return {
    shared_with_groups: presentGroupLinks(req.db, group.shared_with_groups),
    runners_token: groupRole(req.db, req.user, group) >= Role.owner ? `GR1348941${String(group.id).padStart(20, '0')}` : undefined,
    enabled_git_access_protocol: 'all',
    projects: listed((p) => p.namespace_id === group.id).map((p) => presentProject(req, p)),
    shared_projects: listed((p) => p.shared_with_groups.some((l) => l.group_id === group.id)).map((p) => presentProject(req, p)),
  };
}

const SHARED_GROUP = { fields: SHARED_GROUP_FIELDS };
/** The groups a group or project is shared with, as the service lists them (a group since deleted left out). */
export function presentGroupLinks(db: Db, links: GroupLink[] | undefined): Array<Record<string, unknown>> {
  return (links ?? []).flatMap((link) => {
    const shared = groupById(db, link.group_id);
    return shared ? [presentRecord(SHARED_GROUP, link, { group_name: shared.name, group_full_path: shared.full_path })] : [];
  });
}

const NAMESPACE = { fields: NAMESPACE_FIELDS };
/** The namespace of a project (its group, or its owner's personal one), as the service embeds it in project records. */
export function presentNamespace(db: Db, project: Project, rootUrl: string): Record<string, unknown> | null {
  const group = projectGroup(db, project);
  if (group) return presentRecord(NAMESPACE, group, { kind: 'group', avatar_url: avatarUrl(rootUrl, 'group', group), web_url: `${rootUrl}/groups/${group.full_path}` });
  const owner = namespaceOwner(db, project);
  if (!owner) return null;
  const personal = { id: project.namespace_id, name: owner.name, path: owner.username, full_path: owner.username };
  return presentRecord(NAMESPACE, personal, { kind: 'user', avatar_url: userAvatarUrl(owner, rootUrl), web_url: `${rootUrl}/${owner.username}` });
}

export interface ProjectView {
  /** The short record; default: as the request asks (`simple=true`). */
  simple?: boolean;
  /** `statistics=true`: shown to reporters and above. */
  statistics?: boolean;
  /** The single-project answer: the caller's access. */
  permissions?: boolean;
}

const pickFields = (fields: Record<string, Field>, names: string[]): Record<string, Field> => Object.fromEntries(names.map((name) => [name, fields[name]]));

const projectFields = Object.keys(projectDeclaration.fields);
/** `simple=true`: the fields up to the namespace, and the visibility. */
const SIMPLE_PROJECT = { fields: pickFields(projectDeclaration.fields, [...projectFields.slice(0, projectFields.indexOf('namespace') + 1), 'visibility']) };
/** What only maintainers (and administrators) see: the CI/CD settings, where it was imported from. */
const MAINTAINER_SETTINGS = [
  'ci_default_git_depth', 'ci_forward_deployment_enabled', 'ci_separated_caches', 'keep_latest_artifact', 'restrict_user_defined_variables',
  'group_runners_enabled', 'auto_cancel_pending_pipelines', 'build_timeout', 'auto_devops_enabled', 'import_url', 'import_type', 'build_git_strategy',
];

/** The old switches of a project's features (on unless its access level is disabled): the switch, the feature. */
export const FEATURE_SWITCHES = [
  ['issues_enabled', 'issues'], ['merge_requests_enabled', 'merge_requests'], ['wiki_enabled', 'wiki'], ['jobs_enabled', 'builds'],
  ['snippets_enabled', 'snippets'], ['container_registry_enabled', 'container_registry'],
] as const;

/**
 * A project as the service presents it (src/resources/projects/resource.ts), with what the service derives: its
 * URLs, namespace and owner, the features' switches from their access levels, counts (stars and forks: zero here).
 */
export function presentProject(req: SandboxRequest, project: Project, view: ProjectView = {}): Record<string, unknown> {
  const { db, rootUrl } = req;
  const namespace = presentNamespace(db, project, rootUrl);
  const web = `${rootUrl}/${project.path_with_namespace}`;
  const identity = {
    name_with_namespace: `${namespace?.kind === 'group' ? fullName(db, projectGroup(db, project)!) : (namespace?.name ?? '')} / ${project.name}`,
    tag_list: project.topics,
    ssh_url_to_repo: `git@${new URL(rootUrl).hostname}:${project.path_with_namespace}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    forks_count: 0,
    avatar_url: avatarUrl(rootUrl, 'project', project),
    star_count: 0,
    namespace,
  };
  if (view.simple ?? bool(req.query.simple)) return presentRecord(SIMPLE_PROJECT, project, identity);
  return presentRecord(projectDeclaration, project, Object.assign(identity, projectDetails(req, project, view, namespace?.kind === 'user')));
}

/** What the full answer has beyond the simple one, and the fields it goes without for this caller (undefined). */
function projectDetails(req: SandboxRequest, project: Project, view: ProjectView, personal: boolean): Record<string, unknown> {
  const { db, rootUrl } = req;
  const admin = Boolean(req.user?.is_admin);
  const role = projectRole(db, req.user, project);
  const api = `${rootUrl}/api/v4/projects/${project.id}`;
  const enabled = (feature: string): boolean => (project as unknown as Record<string, unknown>)[`${feature}_access_level`] !== 'disabled';
  const repository = repositories(db).find((r) => r.project_id === project.id);
  const owner = personal ? namespaceOwner(db, project) : undefined;
  const details: Record<string, unknown> = {
    repository_storage: admin ? project.repository_storage : undefined,
    container_registry_image_prefix: `registry.${new URL(rootUrl).host}/${project.path_with_namespace}`,
    _links: {
      self: api, issues: `${api}/issues`, merge_requests: `${api}/merge_requests`, repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`, events: `${api}/events`, members: `${api}/members`, cluster_agents: `${api}/cluster_agents`,
    },
    empty_repo: !repository || Object.keys(repository.branches).length === 0,
    owner: owner ? presentUserBasic(owner, rootUrl) : undefined,
    repository_object_format: 'sha1',
    ...Object.fromEntries(FEATURE_SWITCHES.map(([name, feature]) => [name, enabled(feature)])),
    can_create_merge_request_in: role >= Role.developer,
    emails_disabled: !project.emails_enabled,
    import_status: 'none',
    open_issues_count: issues(db).filter((i) => i.project_id === project.id && i.state === 'opened').length,
    description_html: project.description ? `<p data-sourcepos="1:1-1:${project.description.length}" dir="auto">${escapeHtml(project.description)}</p>` : '',
    build_git_strategy: 'fetch',
    shared_with_groups: presentGroupLinks(db, project.shared_with_groups),
    marked_for_deletion_at: project.marked_for_deletion_on ?? null,
    statistics: view.statistics && (admin || role >= Role.reporter) ? projectStatistics(db, project) : undefined,
    permissions: view.permissions ? callerPermissions(req, project) : undefined,
  };
  const maintainer = role >= Role.maintainer || admin;
  if (!maintainer) for (const name of MAINTAINER_SETTINGS) details[name] = undefined;
  return details;
}

const projectStatistics = (db: Db, project: Project): Record<string, number> => ({
  commit_count: commits(db).filter((c) => c.project_id === project.id).length, storage_size: 0, repository_size: 0, wiki_size: 0,
  lfs_objects_size: 0, job_artifacts_size: 0, pipeline_artifacts_size: 0, packages_size: 0, snippets_size: 0, uploads_size: 0,
  container_registry_size: 0,
});

/** The caller's membership of a project and of its group. */
function callerPermissions(req: SandboxRequest, project: Project): { project_access: unknown; group_access: unknown } {
  const group = projectGroup(req.db, project);
  return {
    project_access: req.user && membershipOf(req.db, 'project', project.id, req.user.id),
    group_access: req.user && group ? membershipOf(req.db, 'group', group.id, req.user.id) : null,
  };
}

function membershipOf(db: Db, type: 'group' | 'project', id: number, userId: number): { access_level: number; notification_level: number } | null {
  const member = members(db).find((m) => m.source_type === type && m.source_id === id && m.user_id === userId);
  return member ? { access_level: member.access_level, notification_level: 3 } : null;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
