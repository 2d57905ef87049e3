import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/**
 * Issues: of a project (list, get, create, update — title, description, confidentiality, closing and reopening),
 * and the lists of a group (with its subgroups) and of everything you can see. No command calls these routes (notes
 * on an issue have their own declaration); the sandbox serves them for other clients (python-gitlab, gitbeaker).
 */
export const issues = defineResource({
  noun: 'issue',
  id: { param: 'issue_iid', field: 'iid' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/issues',
        get: 'GET /projects/{project}/issues/{issue_iid}',
        create: 'POST /projects/{project}/issues',
        update: 'PUT /projects/{project}/issues/{issue_iid}',
      },
    },
    group: { parent: 'group', routes: { list: 'GET /groups/{group}/issues' } },
    instance: { parent: 'instance', where: () => 'the instance', routes: { list: 'GET /issues' } },
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    iid: f.int({ min: 1, readOnly: true }),
    project_id: f.int({ readOnly: true }),
    title: f.string({ create: 'required' }),
    description: f.string({ help: 'the description (Markdown)' }),
    state: f.enum(['opened', 'closed'], { readOnly: true }),
    created_at: f.time({ readOnly: true }),
    updated_at: f.time({ readOnly: true }),
    closed_at: f.time({ readOnly: true, nullable: true }),
    closed_by: f.object({ nullable: true }),
    labels: f.object<string[]>(),
    milestone: f.object({ nullable: true }),
    assignees: f.object(),
    author: f.object(),
    type: f.string({ readOnly: true }),
    assignee: f.object({ nullable: true }),
    user_notes_count: f.int({ readOnly: true }),
    merge_requests_count: f.int({ readOnly: true }),
    upvotes: f.int({ readOnly: true }),
    downvotes: f.int({ readOnly: true }),
    due_date: f.date({ readOnly: true, nullable: true }),
    confidential: f.bool({ default: false }),
    discussion_locked: f.bool({ readOnly: true, nullable: true }),
    issue_type: f.string({ readOnly: true }),
    web_url: f.url({ readOnly: true }),
    time_stats: f.object(),
    task_completion_status: f.object(),
    weight: f.int({ readOnly: true, nullable: true }),
    blocking_issues_count: f.int({ readOnly: true }),
    has_tasks: f.bool({ readOnly: true }),
    task_status: f.string({ readOnly: true }),
    _links: f.object(),
    references: f.object(),
    severity: f.string({ readOnly: true }),
    moved_to_id: f.int({ readOnly: true, nullable: true }),
    imported: f.bool({ readOnly: true }),
    imported_from: f.string({ readOnly: true }),
    service_desk_reply_to: f.string({ readOnly: true, nullable: true }),
    /** `close` or `reopen` on update. */
    state_event: f.enum(['close', 'reopen'], { writeOnly: true, create: 'never' }),
  },
  columns: ['iid', 'title', 'state', 'author.username', 'created_at'],
  identity: ['iid'],
  roles: { read: 'guest', write: 'guest' },
});
