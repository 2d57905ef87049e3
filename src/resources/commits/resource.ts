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
    comments: 'GET /projects/{project}/repository/commits/{sha}/comments',
    comment: 'POST /projects/{project}/repository/commits/{sha}/comments',
    statuses: 'GET /projects/{project}/repository/commits/{sha}/statuses',
    setStatus: 'POST /projects/{project}/statuses/{sha}',
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

/** One file change of a commit (the commits API's `actions`). */
export interface CommitAction {
  action: 'create' | 'update' | 'delete' | 'move' | 'chmod';
  file_path: string;
  previous_path?: string;
  content?: string;
  encoding?: 'text' | 'base64';
  execute_filemode?: boolean;
}
