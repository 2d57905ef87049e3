import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * Notes (comments) on an issue, a project snippet or a merge request: one resource under three parents, chosen by
 * the option given (--issue, --snippet or --mr, each with --project). List, get and delete are the generated verbs;
 * create and update read the text from a file or stdin and are hand-written over these routes.
 */
export const notes = defineResource({
  noun: 'note',
  command: 'notes',
  id: { param: 'note_id', field: 'id' },
  parents: {
    issue: {
      parent: 'project',
      scope: { issue_iid: f.int({ min: 1, flag: 'issue', placeholder: '<iid>', help: 'notes of this issue (its IID, the number shown as #IID)' }) },
      where: ({ project, issue_iid }) => `issue #${String(issue_iid)} in ${String(project)}`,
      routes: {
        list: 'GET /projects/{project}/issues/{issue_iid}/notes',
        get: 'GET /projects/{project}/issues/{issue_iid}/notes/{note_id}',
        create: 'POST /projects/{project}/issues/{issue_iid}/notes',
        update: 'PUT /projects/{project}/issues/{issue_iid}/notes/{note_id}',
        delete: 'DELETE /projects/{project}/issues/{issue_iid}/notes/{note_id}',
        discussions: 'GET /projects/{project}/issues/{issue_iid}/discussions',
      },
    },
    snippet: {
      parent: 'project',
      scope: { snippet_id: f.int({ min: 1, flag: 'snippet', placeholder: '<id>', help: 'notes of this project snippet (its ID)' }) },
      where: ({ project, snippet_id }) => `snippet $${String(snippet_id)} in ${String(project)}`,
      routes: {
        list: 'GET /projects/{project}/snippets/{snippet_id}/notes',
        get: 'GET /projects/{project}/snippets/{snippet_id}/notes/{note_id}',
        create: 'POST /projects/{project}/snippets/{snippet_id}/notes',
        update: 'PUT /projects/{project}/snippets/{snippet_id}/notes/{note_id}',
        delete: 'DELETE /projects/{project}/snippets/{snippet_id}/notes/{note_id}',
        discussions: 'GET /projects/{project}/snippets/{snippet_id}/discussions',
      },
    },
    mr: {
      parent: 'project',
      scope: { merge_request_iid: f.int({ min: 1, flag: 'mr', placeholder: '<iid>', help: 'notes of this merge request (its IID), e.g. published draft notes' }) },
      where: ({ project, merge_request_iid }) => `merge request !${String(merge_request_iid)} in ${String(project)}`,
      routes: {
        list: 'GET /projects/{project}/merge_requests/{merge_request_iid}/notes',
        get: 'GET /projects/{project}/merge_requests/{merge_request_iid}/notes/{note_id}',
        create: 'POST /projects/{project}/merge_requests/{merge_request_iid}/notes',
        update: 'PUT /projects/{project}/merge_requests/{merge_request_iid}/notes/{note_id}',
        delete: 'DELETE /projects/{project}/merge_requests/{merge_request_iid}/notes/{note_id}',
        discussions: 'GET /projects/{project}/merge_requests/{merge_request_iid}/discussions',
      },
    },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    /** DiscussionNote (a thread that can be replied to), DiffNote (on a line of the diff) or null (a plain comment). */
    type: f.string({ readOnly: true, nullable: true }),
    body: f.string({ create: 'required', help: 'the note text (Markdown, at most 1,000,000 characters)' }),
    author: f.object(),
    created_at: f.time({ help: 'ISO 8601 creation time, after 1970-01-01 (administrators and owners)', update: false }),
    updated_at: f.time({ readOnly: true }),
    system: f.bool({ readOnly: true }),
    noteable_id: f.int({ readOnly: true }),
    noteable_type: f.enum(['Issue', 'Snippet', 'MergeRequest'], { readOnly: true }),
    project_id: f.int({ readOnly: true }),
    commit_id: f.string({ readOnly: true, nullable: true }),
    resolvable: f.bool({ readOnly: true }),
    confidential: f.bool({ help: 'deprecated name of internal, for older instances' }),
    internal: f.bool({ help: 'visible only to project members with Reporter or more', update: false }),
    imported: f.bool({ readOnly: true }),
    imported_from: f.string({ readOnly: true }),
    noteable_iid: f.int({ readOnly: true, nullable: true }),
    commands_changes: f.object(),
  },
  filters: {
    sort: f.enum(['asc', 'desc'], { help: 'asc or desc (default desc)' }),
    order_by: f.enum(['created_at', 'updated_at'], { help: 'created_at (default) or updated_at' }),
    activity_filter: f.enum(['all_notes', 'only_comments', 'only_activity'], { help: 'all_notes (default), only_comments or only_activity' }),
  },
  columns: ['id', 'author.username', 'created_at', 'system', 'internal', 'body'],
  identity: ['id'],
  roles: { read: 'guest', write: 'guest' },
});
