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
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    name: f.string({ help: 'the name (default: the path)' }),
    path: f.string({ help: 'the path in its namespace (default: the name, in lower case with dashes)' }),
    path_with_namespace: f.string({ readOnly: true }),
    namespace_id: f.int({ min: 1, update: false, help: 'the group or personal namespace to create it in (default: yours)' }),
    ...PROJECT_SETTING_FIELDS,
    archived: f.bool({ readOnly: true }),
    repository_storage: f.string({ readOnly: true }),
    last_activity_at: f.time({ readOnly: true }),
    marked_for_deletion_on: f.date({ readOnly: true, nullable: true }),
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
