import { projectRole, Role } from './auth.js';
import type { Db } from './db.js';
import { fullName, namespaceOwner, presentNamespace, projectGroup } from './hierarchy.js';
import { bool, type SandboxRequest } from './http.js';
import { presentRecord } from './records.js';
import { groups as groupDeclaration } from '../resources/groups/resource.js';
import { avatarUrl, commits, groups, issues, members, repositories, type Group, type GroupLink, type AccessToken, type Project, type User } from './model.js';

/** JSON views of core records, shared by the route modules. */

export function presentUserBasic(user: User, rootUrl: string): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    state: user.state,
    locked: false,
    avatar_url: `${rootUrl}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    web_url: `${rootUrl}/${user.username}`,
  };
}

export interface GroupView {
  /** The caller administers the instance (sees repository_storage). */
  admin?: boolean;
  /** The single-group view (GroupDetail): shared groups, runners token, projects. */
  detail?: { canAdmin: boolean; projects: Project[]; sharedProjects: Project[]; present: (project: Project) => unknown };
}

const groupFields = Object.keys(groupDeclaration.fields);
/** A group in a list (the service's Group): without the fields only the single-group answer has, shared_with_groups on. */
const LISTED_GROUP = { fields: groupDeclaration.fields, without: groupFields.slice(groupFields.indexOf('shared_with_groups')) };

/** A group as the service presents it (src/resources/groups/resource.ts), with what the service derives. */
export function presentGroup(group: Group, db: Db, rootUrl: string, view: GroupView = {}): Record<string, unknown> {
  const detail = view.detail;
  return presentRecord(detail ? groupDeclaration : LISTED_GROUP, group, {
    web_url: `${rootUrl}/groups/${group.full_path}`,
    emails_disabled: !group.emails_enabled,
    avatar_url: avatarUrl(rootUrl, 'group', group),
    full_name: fullName(db, group),
    organization_id: 1,
    repository_storage: view.admin ? 'default' : undefined,
    ...(detail && {
      shared_with_groups: presentGroupLinks(db, group.shared_with_groups),
      runners_token: detail.canAdmin ? `GR1348941${String(group.id).padStart(20, '0')}` : undefined,
      enabled_git_access_protocol: 'all',
      projects: detail.projects.map(detail.present),
      shared_projects: detail.sharedProjects.map(detail.present),
    }),
  });
}

/** The groups a group or project is shared with, as the service lists them. */
export function presentGroupLinks(db: Db, links: GroupLink[] | undefined): Array<Record<string, unknown>> {
  return (links ?? []).flatMap((link) => {
    const shared = groups(db).find((g) => g.id === link.group_id);
    return shared ? [{ group_id: shared.id, group_name: shared.name, group_full_path: shared.full_path, group_access_level: link.group_access_level, expires_at: link.expires_at }] : [];
  });
}

/** Feature access levels of a project ("enabled", "private", "disabled"), with their defaults. */
export const PROJECT_FEATURES: Record<string, string> = {
  issues: 'enabled', repository: 'enabled', merge_requests: 'enabled', forking: 'enabled', wiki: 'enabled', builds: 'enabled',
  snippets: 'enabled', pages: 'private', analytics: 'enabled', container_registry: 'enabled', security_and_compliance: 'private',
  releases: 'enabled', environments: 'enabled', feature_flags: 'enabled', infrastructure: 'enabled', monitor: 'enabled',
  model_experiments: 'enabled', model_registry: 'enabled',
};

/** Project settings clients may set on create and update, with the values a new project has. */
export const PROJECT_SETTINGS: Record<string, unknown> = {
  packages_enabled: true,
  resolve_outdated_diff_discussions: false,
  emails_enabled: true,
  shared_runners_enabled: true,
  lfs_enabled: true,
  ci_config_path: '',
  public_jobs: true,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: null,
  request_access_enabled: true,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  merge_method: 'merge',
  squash_option: 'default_off',
  enforce_auth_checks_on_uploads: true,
  suggestion_commit_message: null,
  merge_commit_template: null,
  squash_commit_template: null,
  issue_branch_template: null,
  autoclose_referenced_issues: true,
  warn_about_potentially_unwanted_characters: true,
  approvals_before_merge: 0,
  mirror: false,
  ci_default_git_depth: 20,
  ci_forward_deployment_enabled: true,
  ci_separated_caches: true,
  build_timeout: 3600,
  auto_cancel_pending_pipelines: 'enabled',
  auto_devops_enabled: false,
  keep_latest_artifact: true,
  restrict_user_defined_variables: false,
  group_runners_enabled: true,
  service_desk_enabled: false,
  ...Object.fromEntries(Object.entries(PROJECT_FEATURES).map(([feature, level]) => [`${feature}_access_level`, level])),
};

export interface ProjectView {
  /** The caller's role in the project (0: none); decides the settings shown to maintainers. */
  role?: number;
  admin?: boolean;
  /** `simple=true`: the short record. */
  simple?: boolean;
  /** `statistics=true`. */
  statistics?: boolean;
  /** The single-project view adds the caller's permissions. */
  permissions?: { project_access: unknown; group_access: unknown };
}

/**
 * A project record in the service's shape (the Project entity). Counts the sandbox does not keep (stars, forks)
 * are zero. Built by assignment rather than spreads: fleets list hundreds of projects, and spread-built objects are
 * several times slower to make and serialize.
 */
export function presentProject(project: Project, db: Db, rootUrl: string, view: ProjectView = {}): Record<string, unknown> {
  const namespace = presentNamespace(db, project, rootUrl);
  const { host, hostname } = new URL(rootUrl);
  const web = `${rootUrl}/${project.path_with_namespace}`;
  const api = `${rootUrl}/api/v4/projects/${project.id}`;
  const topics = project.topics ?? [];
  const record: Record<string, unknown> = {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace?.kind === 'group' ? fullName(db, projectGroup(db, project)!) : (namespace?.name ?? '')} / ${project.name}`,
    path: project.path,
    path_with_namespace: project.path_with_namespace,
    created_at: project.created_at,
    default_branch: project.default_branch,
    tag_list: topics,
    topics,
    ssh_url_to_repo: `git@${hostname}:${project.path_with_namespace}.git`,
    http_url_to_repo: `${web}.git`,
    web_url: web,
    readme_url: null,
    forks_count: 0,
    avatar_url: avatarUrl(rootUrl, 'project', project),
    star_count: 0,
    last_activity_at: project.last_activity_at ?? project.created_at,
    namespace,
  };
  if (view.simple) {
    record.visibility = project.visibility;
    return record;
  }
  const settings: Record<string, unknown> = project.settings ? { ...PROJECT_SETTINGS, ...project.settings } : PROJECT_SETTINGS;
  const maintainer = (view.role ?? 0) >= 40 || Boolean(view.admin);
  const enabled = (name: string): boolean => settings[`${name}_access_level`] !== 'disabled';
  const repository = repositories(db).find((r) => r.project_id === project.id);
  const owner = namespace?.kind === 'user' ? namespaceOwner(db, project) : undefined;
  if (view.admin) record.repository_storage = project.repository_storage;
  record.container_registry_image_prefix = `registry.${host}/${project.path_with_namespace}`;
  record._links = {
    self: api, issues: `${api}/issues`, merge_requests: `${api}/merge_requests`, repo_branches: `${api}/repository/branches`,
    labels: `${api}/labels`, events: `${api}/events`, members: `${api}/members`, cluster_agents: `${api}/cluster_agents`,
  };
  record.packages_enabled = settings.packages_enabled;
  record.empty_repo = !repository || Object.keys(repository.branches).length === 0;
  record.archived = project.archived ?? false;
  record.visibility = project.visibility;
  if (owner) record.owner = presentUserBasic(owner, rootUrl);
  record.resolve_outdated_diff_discussions = settings.resolve_outdated_diff_discussions;
  record.repository_object_format = 'sha1';
  record.issues_enabled = enabled('issues');
  record.merge_requests_enabled = enabled('merge_requests');
  record.wiki_enabled = enabled('wiki');
  record.jobs_enabled = enabled('builds');
  record.snippets_enabled = enabled('snippets');
  record.container_registry_enabled = enabled('container_registry');
  record.service_desk_enabled = settings.service_desk_enabled;
  record.can_create_merge_request_in = (view.role ?? 0) >= 30;
  for (const feature of FEATURE_NAMES) record[`${feature}_access_level`] = settings[`${feature}_access_level`];
  record.emails_disabled = !settings.emails_enabled;
  record.emails_enabled = settings.emails_enabled;
  record.shared_runners_enabled = settings.shared_runners_enabled;
  record.lfs_enabled = settings.lfs_enabled;
  record.creator_id = project.creator_id ?? null;
  if (maintainer) {
    record.import_url = null;
    record.import_type = null;
  }
  record.import_status = 'none';
  record.open_issues_count = issues(db).filter((i) => i.project_id === project.id && i.state === 'opened').length;
  record.description_html = project.description ? `<p data-sourcepos="1:1-1:${project.description.length}" dir="auto">${escapeHtml(project.description)}</p>` : '';
  record.updated_at = project.updated_at ?? project.created_at;
  if (maintainer) for (const name of MAINTAINER_SETTINGS) record[name] = settings[name];
  if (maintainer) record.build_git_strategy = 'fetch';
  for (const name of MERGE_SETTINGS) record[name] = settings[name];
  record.shared_with_groups = presentGroupLinks(db, project.shared_with_groups);
  record.marked_for_deletion_at = project.marked_for_deletion_on ?? null;
  record.marked_for_deletion_on = project.marked_for_deletion_on ?? null;
  if (view.statistics) {
    record.statistics = {
      commit_count: commits(db).filter((c) => c.project_id === project.id).length, storage_size: 0, repository_size: 0, wiki_size: 0,
      lfs_objects_size: 0, job_artifacts_size: 0, pipeline_artifacts_size: 0, packages_size: 0, snippets_size: 0, uploads_size: 0,
      container_registry_size: 0,
    };
  }
  if (view.permissions) record.permissions = view.permissions;
  return record;
}

/** A project record as the caller sees it. */
export function presentProjectFor(req: SandboxRequest, project: Project, extra: { statistics?: boolean; permissions?: boolean } = {}): Record<string, unknown> {
  const admin = Boolean(req.user?.is_admin);
  const role = projectRole(req.db, req.user, project);
  const group = projectGroup(req.db, project);
  const permissions = extra.permissions
    ? {
      project_access: req.user && membershipOf(req.db, 'project', project.id, req.user.id),
      group_access: req.user && group ? membershipOf(req.db, 'group', group.id, req.user.id) : null,
    }
    : undefined;
  return presentProject(project, req.db, req.rootUrl, {
    role, admin, simple: bool(req.query.simple), statistics: extra.statistics && (admin || role >= Role.reporter), permissions,
  });
}

function membershipOf(db: Db, type: 'group' | 'project', id: number, userId: number): { access_level: number; notification_level: number } | null {
  const member = members(db).find((m) => m.source_type === type && m.source_id === id && m.user_id === userId);
  return member ? { access_level: member.access_level, notification_level: 3 } : null;
}

const FEATURE_NAMES = Object.keys(PROJECT_FEATURES);
/** CI/CD settings only maintainers see. */
const MAINTAINER_SETTINGS = [
  'ci_default_git_depth', 'ci_forward_deployment_enabled', 'ci_separated_caches', 'keep_latest_artifact', 'restrict_user_defined_variables',
  'group_runners_enabled', 'auto_cancel_pending_pipelines', 'build_timeout', 'auto_devops_enabled',
];
/** Merge and other settings everyone sees, in the service's order. */
const MERGE_SETTINGS = [
  'ci_config_path', 'public_jobs', 'only_allow_merge_if_pipeline_succeeds', 'allow_merge_on_skipped_pipeline', 'request_access_enabled',
  'only_allow_merge_if_all_discussions_are_resolved', 'remove_source_branch_after_merge', 'printing_merge_request_link_enabled', 'merge_method',
  'squash_option', 'enforce_auth_checks_on_uploads', 'suggestion_commit_message', 'merge_commit_template', 'squash_commit_template',
  'issue_branch_template', 'warn_about_potentially_unwanted_characters', 'autoclose_referenced_issues', 'approvals_before_merge', 'mirror',
];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A personal access token as the token endpoints present it (never its value). */
export function presentPersonalToken(token: AccessToken): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    revoked: token.revoked,
    created_at: token.created_at,
    description: token.description,
    scopes: token.scopes,
    user_id: token.user_id,
    last_used_at: token.last_used_at,
    active: token.active,
    expires_at: token.expires_at,
  };
}
