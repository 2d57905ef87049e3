import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

const base = '/projects/{project}/merge_requests/{merge_request_iid}/draft_notes';

/**
 * Draft notes of a merge request: pending comments only their author sees until they are published. List (not
 * paginated by the service), create (threads, replies, diff positions), update and publishing are hand-written
 * commands; their routes are these.
 */
export const draftNotes = defineResource({
  noun: 'draft note',
  command: 'draft-notes',
  parent: 'project',
  scope: { merge_request_iid: f.int({ min: 1, flag: 'mr', placeholder: '<iid>', help: 'merge request IID (the number shown as !IID)' }) },
  where: ({ project, merge_request_iid }) => `merge request !${String(merge_request_iid)} in ${String(project)}`,
  id: { param: 'draft_note_id', field: 'id' },
  routes: {
    list: `GET ${base}`,
    get: `GET ${base}/{draft_note_id}`,
    create: `POST ${base}`,
    update: `PUT ${base}/{draft_note_id}`,
    delete: `DELETE ${base}/{draft_note_id}`,
    publish: `PUT ${base}/{draft_note_id}/publish`,
    publishAll: `POST ${base}/bulk_publish`,
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    author_id: f.int({ readOnly: true }),
    merge_request_id: f.int({ readOnly: true }),
    resolve_discussion: f.bool({ help: 'resolve the thread replied to when the draft is published' }),
    discussion_id: f.string({ readOnly: true, nullable: true }),
    note: f.string({ create: 'required', help: 'the comment (Markdown, at most 1,000,000 characters)' }),
    commit_id: f.string({ nullable: true, help: 'comment on this commit of the merge request' }),
    line_code: f.string({ readOnly: true, nullable: true }),
    position: f.object(),
  },
  columns: ['id', 'note', 'discussion_id', 'resolve_discussion', 'commit_id', 'line_code'],
  identity: ['id'],
  // In a private project, merge requests are hidden (404) from guests.
  roles: { read: 'reporter', write: 'reporter' },
});
