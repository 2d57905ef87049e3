import { f } from '../../api/fields.js';
import { defineResource, defineSingleton } from '../../api/resource.js';

/**
 * Projects of the instance. A project is named by its id or full path, one encoded segment: `{project}`. The lists
 * of a group's and of a user's projects are routes of their own. The settings admins standardise (merge method,
 * pipeline and discussion requirements, visibility …) are settable fields: `projects update` takes them as options,
 * and the desired `settings` section (projectSettings below) compares and sets them. Groups, beside: ../groups/.
 */

/** Who can see a project or a group. */
export const VISIBILITY = ['private', 'internal', 'public'] as const;
/** Who can use a feature of a project or group (its issues, wiki …). */
export const FEATURE = ['disabled', 'private', 'enabled'] as const;

/** Project settings admins standardise (terraform's gitlab_project, gitlabform's project_settings), as the service names them. */
export const PROJECT_SETTING_FIELDS = {
  description: f.string({ nullable: true, help: 'the description' }),
  visibility: f.enum(VISIBILITY, { help: 'who can see it (default private)' }),
  default_branch: f.string({ nullable: true, help: 'the default branch (it must exist)' }),
  topics: f.list({ help: 'topics, comma-separated' }),
  merge_method: f.enum(['merge', 'rebase_merge', 'ff'], { help: 'merge commit, merge commit with semi-linear history, or fast-forward' }),
  squash_option: f.enum(['never', 'always', 'default_on', 'default_off'], { help: 'squashing commits on merge' }),
  only_allow_merge_if_pipeline_succeeds: f.bool({ help: 'merge only when the pipeline succeeded' }),
  allow_merge_on_skipped_pipeline: f.bool({ nullable: true, help: 'a skipped pipeline counts as succeeded' }),
  only_allow_merge_if_all_discussions_are_resolved: f.bool({ help: 'merge only when every thread is resolved' }),
  remove_source_branch_after_merge: f.bool({ help: 'delete the source branch after a merge, by default' }),
  resolve_outdated_diff_discussions: f.bool({ help: 'resolve threads on lines a push changed' }),
  printing_merge_request_link_enabled: f.bool({ help: 'show the link to create or view a merge request on push' }),
  autoclose_referenced_issues: f.bool({ help: 'close issues a merge names ("Closes #1")' }),
  merge_commit_template: f.string({ nullable: true, help: 'template of merge commit messages' }),
  squash_commit_template: f.string({ nullable: true, help: 'template of squash commit messages' }),
  request_access_enabled: f.bool({ help: 'users may request access' }),
  lfs_enabled: f.bool({ help: 'Git LFS' }),
  packages_enabled: f.bool({ help: 'the package registry' }),
  shared_runners_enabled: f.bool({ help: "the instance's runners" }),
  public_jobs: f.bool({ help: 'job logs and artifacts visible to non-members of a public project' }),
  ci_config_path: f.string({ help: 'path of the CI configuration file ("" for the default)' }),
  build_timeout: f.int({ min: 600, help: 'job timeout in seconds' }),
  ci_default_git_depth: f.int({ min: 0, max: 1000, help: 'default clone depth of jobs' }),
  auto_cancel_pending_pipelines: f.enum(['enabled', 'disabled'], { help: 'cancel redundant pipelines' }),
  keep_latest_artifact: f.bool({ help: 'keep the artifacts of the latest successful pipeline' }),
  issues_access_level: f.enum(FEATURE, { help: 'issues: disabled, private (members) or enabled' }),
  merge_requests_access_level: f.enum(FEATURE, { help: 'merge requests' }),
  builds_access_level: f.enum(FEATURE, { help: 'CI/CD' }),
  wiki_access_level: f.enum(FEATURE, { help: 'the wiki' }),
  snippets_access_level: f.enum(FEATURE, { help: 'snippets' }),
  forking_access_level: f.enum(FEATURE, { help: 'forking' }),
  container_registry_access_level: f.enum(FEATURE, { help: 'the container registry' }),
} as const;

const S = PROJECT_SETTING_FIELDS;
const readOnly = { readOnly: true } as const;
const nullable = { readOnly: true, nullable: true } as const;

/** What a create or an update of a project sends, in the order the commands offer them. */
export const PROJECT_INPUTS = {
  name: f.string({ help: 'the name (default: the path)' }),
  path: f.string({ help: 'the path in its namespace (default: the name, in lower case with dashes)' }),
  /** Never presented: the answer has the namespace itself. */
  namespace_id: f.int({ min: 1, update: false, writeOnly: true, help: 'the group or personal namespace to create it in (default: yours)' }),
  ...PROJECT_SETTING_FIELDS,
} as const;

/** The group or personal namespace a project is in, as its answer embeds it (`namespace`). */
export const NAMESPACE_FIELDS = {
  id: f.int(readOnly),
  name: f.string(readOnly),
  path: f.string(readOnly),
  kind: f.enum(['group', 'user'], readOnly),
  full_path: f.string(readOnly),
  parent_id: f.int(nullable),
  avatar_url: f.string(nullable),
  web_url: f.string(readOnly),
};

export const projects = defineResource({
  noun: 'project',
  command: 'projects',
  parent: 'instance',
  id: { param: 'project', field: 'id' },
  routes: {
    list: 'GET /projects',
    get: 'GET /projects/{project}',
    create: 'POST /projects',
    update: 'PUT /projects/{project}',
    delete: 'DELETE /projects/{project}',
    ofGroup: 'GET /groups/{group}/projects',
    /** The projects shared with a group (invited it): its members reach them. */
    sharedWithGroup: 'GET /groups/{group}/projects/shared',
    ofUser: 'GET /users/{user}/projects',
    /** Administrators create a project for another user, in their personal namespace by default. */
    createForUser: 'POST /projects/user/{user}',
    archive: 'POST /projects/{project}/archive',
    unarchive: 'POST /projects/{project}/unarchive',
    transfer: 'PUT /projects/{project}/transfer',
    restore: 'POST /projects/{project}/restore',
  },
  /**
   * In the service's order (ProjectDetails): `simple=true` answers the fields up to the namespace, and the
   * visibility. Some only administrators (repository_storage) or maintainers (import_url, the CI/CD settings) see.
   */
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    description: S.description,
    name: PROJECT_INPUTS.name,
    name_with_namespace: f.string(readOnly),
    path: PROJECT_INPUTS.path,
    path_with_namespace: f.string(readOnly),
    created_at: f.time(readOnly),
    default_branch: S.default_branch,
    tag_list: f.list(readOnly),
    topics: S.topics,
    ssh_url_to_repo: f.string(readOnly),
    http_url_to_repo: f.string(readOnly),
    web_url: f.string(readOnly),
    readme_url: f.string(nullable),
    forks_count: f.int(readOnly),
    avatar_url: f.string(nullable),
    star_count: f.int(readOnly),
    last_activity_at: f.time(readOnly),
    namespace: f.object(readOnly),
    namespace_id: PROJECT_INPUTS.namespace_id,
    repository_storage: f.string(readOnly),
    container_registry_image_prefix: f.string(readOnly),
    _links: f.object(readOnly),
    packages_enabled: S.packages_enabled,
    empty_repo: f.bool(readOnly),
    archived: f.bool(readOnly),
    visibility: S.visibility,
    /** A personal project's. */
    owner: f.object(readOnly),
    resolve_outdated_diff_discussions: S.resolve_outdated_diff_discussions,
    repository_object_format: f.string(readOnly),
    issues_enabled: f.bool(readOnly),
    merge_requests_enabled: f.bool(readOnly),
    wiki_enabled: f.bool(readOnly),
    jobs_enabled: f.bool(readOnly),
    snippets_enabled: f.bool(readOnly),
    container_registry_enabled: f.bool(readOnly),
    service_desk_enabled: f.bool(readOnly),
    can_create_merge_request_in: f.bool(readOnly),
    issues_access_level: S.issues_access_level,
    repository_access_level: f.enum(FEATURE, { readOnly: true }),
    merge_requests_access_level: S.merge_requests_access_level,
    forking_access_level: S.forking_access_level,
    wiki_access_level: S.wiki_access_level,
    builds_access_level: S.builds_access_level,
    snippets_access_level: S.snippets_access_level,
    pages_access_level: f.enum(FEATURE, { readOnly: true }),
    analytics_access_level: f.enum(FEATURE, { readOnly: true }),
    container_registry_access_level: S.container_registry_access_level,
    security_and_compliance_access_level: f.enum(FEATURE, { readOnly: true }),
    releases_access_level: f.enum(FEATURE, { readOnly: true }),
    environments_access_level: f.enum(FEATURE, { readOnly: true }),
    feature_flags_access_level: f.enum(FEATURE, { readOnly: true }),
    infrastructure_access_level: f.enum(FEATURE, { readOnly: true }),
    monitor_access_level: f.enum(FEATURE, { readOnly: true }),
    model_experiments_access_level: f.enum(FEATURE, { readOnly: true }),
    model_registry_access_level: f.enum(FEATURE, { readOnly: true }),
    emails_disabled: f.bool(readOnly),
    emails_enabled: f.bool(readOnly),
    shared_runners_enabled: S.shared_runners_enabled,
    lfs_enabled: S.lfs_enabled,
    creator_id: f.int(nullable),
    import_url: f.string(nullable),
    import_type: f.string(nullable),
    import_status: f.string(readOnly),
    open_issues_count: f.int(readOnly),
    description_html: f.string(readOnly),
    updated_at: f.time(readOnly),
    ci_default_git_depth: S.ci_default_git_depth,
    ci_forward_deployment_enabled: f.bool(readOnly),
    ci_separated_caches: f.bool(readOnly),
    keep_latest_artifact: S.keep_latest_artifact,
    restrict_user_defined_variables: f.bool(readOnly),
    group_runners_enabled: f.bool(readOnly),
    auto_cancel_pending_pipelines: S.auto_cancel_pending_pipelines,
    build_timeout: S.build_timeout,
    auto_devops_enabled: f.bool(readOnly),
    build_git_strategy: f.string(readOnly),
    ci_config_path: S.ci_config_path,
    public_jobs: S.public_jobs,
    only_allow_merge_if_pipeline_succeeds: S.only_allow_merge_if_pipeline_succeeds,
    allow_merge_on_skipped_pipeline: S.allow_merge_on_skipped_pipeline,
    request_access_enabled: S.request_access_enabled,
    only_allow_merge_if_all_discussions_are_resolved: S.only_allow_merge_if_all_discussions_are_resolved,
    remove_source_branch_after_merge: S.remove_source_branch_after_merge,
    printing_merge_request_link_enabled: S.printing_merge_request_link_enabled,
    merge_method: S.merge_method,
    squash_option: S.squash_option,
    enforce_auth_checks_on_uploads: f.bool(readOnly),
    suggestion_commit_message: f.string(nullable),
    merge_commit_template: S.merge_commit_template,
    squash_commit_template: S.squash_commit_template,
    issue_branch_template: f.string(nullable),
    warn_about_potentially_unwanted_characters: f.bool(readOnly),
    autoclose_referenced_issues: S.autoclose_referenced_issues,
    approvals_before_merge: f.int(readOnly),
    mirror: f.bool(readOnly),
    shared_with_groups: f.object(readOnly),
    marked_for_deletion_at: f.date(nullable),
    marked_for_deletion_on: f.date(nullable),
    /** With statistics=true, for reporters and above. */
    statistics: f.object(readOnly),
    /** One project's answer: the caller's access. */
    permissions: f.object(readOnly),
  },
  columns: ['id', 'path_with_namespace', 'visibility', 'archived', 'default_branch', 'last_activity_at'],
  identity: ['path_with_namespace'],
  roles: { read: 'guest', write: 'owner' },
});

/** A project's general settings as one record (the desired `settings` section of projects). */
export const projectSettings = defineSingleton({
  noun: 'project settings',
  command: 'projects update',
  parent: 'project',
  routes: { get: 'GET /projects/{project}', update: 'PUT /projects/{project}' },
  fields: PROJECT_SETTING_FIELDS,
  roles: { read: 'guest', write: 'maintainer' },
});
