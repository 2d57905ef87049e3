import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** Commits of a repository: listed, read, created from actions, cherry-picked, reverted; their diffs, comments and statuses. */
export const commits = defineResource({
  noun: 'commit',
  command: 'commits',
  parent: 'project',
  id: { param: 'sha', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/repository/commits',
    get: 'GET /projects/{project}/repository/commits/{sha}',
    create: 'POST /projects/{project}/repository/commits',
    refs: 'GET /projects/{project}/repository/commits/{sha}/refs',
    sequence: 'GET /projects/{project}/repository/commits/{sha}/sequence',
    cherryPick: 'POST /projects/{project}/repository/commits/{sha}/cherry_pick',
    signature: 'GET /projects/{project}/repository/commits/{sha}/signature',
    revert: 'POST /projects/{project}/repository/commits/{sha}/revert',
    diff: 'GET /projects/{project}/repository/commits/{sha}/diff',
  },
  fields: {
    id: f.string({ readOnly: true, help: 'commit SHA, branch or tag' }),
    short_id: f.string({ readOnly: true }),
    created_at: f.time({ readOnly: true }),
    parent_ids: f.list({ readOnly: true }),
    title: f.string({ readOnly: true }),
    message: f.string({ readOnly: true }),
    author_name: f.string({ readOnly: true }),
    author_email: f.string({ readOnly: true }),
    authored_date: f.time({ readOnly: true }),
    committer_name: f.string({ readOnly: true }),
    committer_email: f.string({ readOnly: true }),
    committed_date: f.time({ readOnly: true }),
    trailers: f.object({ readOnly: true }),
    extended_trailers: f.object({ readOnly: true }),
    web_url: f.string({ readOnly: true }),
    stats: f.object({ readOnly: true }),
  },
  columns: ['short_id', 'committed_date', 'author_name', 'title'],
  identity: ['id'],
  roles: { read: 'reporter', write: 'developer' },
});

/** The commit comments and statuses are on: its SHA, a branch or a tag. */
const onCommit = { sha: f.string({ help: 'commit SHA, branch or tag', placeholder: '<sha>' }) };

/** Comments on a commit, on a line of a file (path, line, line_type) or on the whole commit; anyone who reads the project adds them. */
export const commitComments = defineResource({
  noun: 'commit comment',
  command: 'commits',
  parent: 'project',
  scope: onCommit,
  id: { param: 'sha', field: 'note' },
  routes: {
    list: 'GET /projects/{project}/repository/commits/{sha}/comments',
    create: 'POST /projects/{project}/repository/commits/{sha}/comments',
  },
  fields: {
    note: f.string({ create: 'required', help: 'the comment' }),
    path: f.string({ nullable: true, help: 'the file commented on' }),
    line: f.int({ min: 1, nullable: true, help: 'the line commented on' }),
    line_type: f.enum(['new', 'old'], { nullable: true, help: 'new (default) or old: the side of the diff the line is on' }),
    author: f.object(),
    created_at: f.time({ readOnly: true }),
  },
  columns: ['created_at', 'author.username', 'path', 'line', 'note'],
  identity: ['note'],
  roles: { read: 'guest', write: 'guest' },
});

/** The states of a commit status. */
export const COMMIT_STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;

/** External statuses of a commit: what CI systems outside the instance report (`commits set-status`, `commits statuses`). */
export const commitStatuses = defineResource({
  noun: 'commit status',
  command: 'commits',
  parent: 'project',
  scope: onCommit,
  id: { param: 'status_id', field: 'id' },
  routes: {
    list: 'GET /projects/{project}/repository/commits/{sha}/statuses',
    create: 'POST /projects/{project}/statuses/{sha}',
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    sha: f.string({ readOnly: true }),
    ref: f.string({ help: 'branch or tag the status is for (default: the default branch)' }),
    status: f.enum(COMMIT_STATUS_STATES, { readOnly: true }),
    name: f.string({ help: 'name of the check (default "default")' }),
    target_url: f.string({ nullable: true, help: "where the check's details are" }),
    description: f.string({ nullable: true, help: 'a short description of the status' }),
    created_at: f.time({ readOnly: true }),
    started_at: f.time({ readOnly: true, nullable: true }),
    finished_at: f.time({ readOnly: true, nullable: true }),
    allow_failure: f.bool({ readOnly: true }),
    coverage: f.object<number | null>({ nullable: true }),
    pipeline_id: f.int({ readOnly: true }),
    author: f.object(),
  },
  columns: ['id', 'name', 'status', 'ref', 'target_url', 'created_at'],
  identity: ['name'],
  roles: { read: 'reporter', write: 'developer' },
});

/** One file change of a commit (the commits API's `actions`). */
export interface CommitAction {
  action: 'create' | 'update' | 'delete' | 'move' | 'chmod';
  file_path: string;
  previous_path?: string;
  content?: string;
  encoding?: 'text' | 'base64';
  execute_filemode?: boolean;
  /** update, delete, move: the file's last commit as the change was computed; the service refuses the whole commit when the file changed since. */
  last_commit_id?: string;
}
