import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

const STATES = ['opened', 'closed', 'locked', 'merged'] as const;

/**
 * Merge requests: of a project (list, get, create, update — title, description, target branch, closing and
 * reopening —, delete by owners), and the lists of a group (with its subgroups) and of everything you can see. No
 * command calls these routes (merge trains, approvals, notes and draft notes have their own declarations); the
 * sandbox serves them for other clients (python-gitlab, gitbeaker).
 *
 * The fields are those of a single merge request, in its order; a list leaves out those from `subscribed` on. How
 * many approvals it needs and lacks are not among them: they are the approvals record's (merge-request-approvals.ts).
 */
export const mergeRequests = defineResource({
  noun: 'merge request',
  id: { param: 'merge_request_iid', field: 'iid' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/merge_requests',
        get: 'GET /projects/{project}/merge_requests/{merge_request_iid}',
        create: 'POST /projects/{project}/merge_requests',
        update: 'PUT /projects/{project}/merge_requests/{merge_request_iid}',
        delete: 'DELETE /projects/{project}/merge_requests/{merge_request_iid}',
        /** The merge requests a commit is in (its changes, or the merge of it). */
        ofCommit: 'GET /projects/{project}/repository/commits/{sha}/merge_requests',
      },
    },
    group: { parent: 'group', routes: { list: 'GET /groups/{group}/merge_requests' } },
    instance: { parent: 'instance', where: () => 'the instance', routes: { list: 'GET /merge_requests' } },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    iid: f.int({ min: 1, readOnly: true }),
    project_id: f.int({ readOnly: true }),
    title: f.string({ create: 'required' }),
    description: f.string({ nullable: true }),
    state: f.enum(STATES, { readOnly: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    merged_by: f.object({ nullable: true }),
    merge_user: f.object({ nullable: true }),
    merged_at: f.time({ readOnly: true, nullable: true }),
    closed_by: f.object({ nullable: true }),
    closed_at: f.time({ readOnly: true, nullable: true }),
    target_branch: f.string({ create: 'required' }),
    source_branch: f.string({ create: 'required', update: false }),
    user_notes_count: f.int({ readOnly: true }),
    upvotes: f.int({ readOnly: true }),
    downvotes: f.int({ readOnly: true }),
    author: f.object(),
    assignees: f.object(),
    assignee: f.object({ nullable: true }),
    reviewers: f.object(),
    source_project_id: f.int({ readOnly: true }),
    target_project_id: f.int({ readOnly: true }),
    labels: f.object<string[]>(),
    draft: f.bool({ readOnly: true }),
    work_in_progress: f.bool({ readOnly: true }),
    milestone: f.object({ nullable: true }),
    merge_when_pipeline_succeeds: f.bool({ readOnly: true }),
    merge_status: f.string({ readOnly: true }),
    detailed_merge_status: f.string({ readOnly: true }),
    sha: f.string({ readOnly: true }),
    merge_commit_sha: f.string({ readOnly: true, nullable: true }),
    squash_commit_sha: f.string({ readOnly: true, nullable: true }),
    discussion_locked: f.bool({ readOnly: true, nullable: true }),
    should_remove_source_branch: f.bool({ readOnly: true, nullable: true }),
    force_remove_source_branch: f.bool({ readOnly: true }),
    prepared_at: f.time({ readOnly: true, nullable: true }),
    reference: f.string({ readOnly: true }),
    references: f.object(),
    web_url: f.url({ readOnly: true }),
    time_stats: f.object(),
    squash: f.bool({ readOnly: true }),
    squash_on_merge: f.bool({ readOnly: true }),
    task_completion_status: f.object(),
    has_conflicts: f.bool({ readOnly: true }),
    blocking_discussions_resolved: f.bool({ readOnly: true }),
    approvals_before_merge: f.int({ readOnly: true, nullable: true }),
    subscribed: f.bool({ readOnly: true }),
    changes_count: f.string({ readOnly: true, nullable: true }),
    latest_build_started_at: f.time({ readOnly: true, nullable: true }),
    latest_build_finished_at: f.time({ readOnly: true, nullable: true }),
    first_deployed_to_production_at: f.time({ readOnly: true, nullable: true }),
    pipeline: f.object({ nullable: true }),
    head_pipeline: f.object({ nullable: true }),
    diff_refs: f.object(),
    merge_error: f.string({ readOnly: true, nullable: true }),
    first_contribution: f.bool({ readOnly: true }),
    user: f.object<{ can_merge: boolean }>(),
    /** `close` or `reopen` on update. */
    state_event: f.enum(['close', 'reopen'], { writeOnly: true, create: 'never' }),
  },
  columns: ['iid', 'title', 'state', 'source_branch', 'target_branch', 'author.username'],
  identity: ['iid'],
  roles: { read: 'reporter', write: 'developer' },
});
