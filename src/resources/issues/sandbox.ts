import { projectRole, Role } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { bool, errors, required, type SandboxRequest } from '../../sandbox/http.js';
import { applyStateEvent, authorAndCloser, issuableHooks, references, UNTRACKED } from '../../sandbox/issuables.js';
import { issues, type Issue, type Project } from '../../sandbox/model.js';
import { projectById } from '../../sandbox/hierarchy.js';
import type { Values } from '../../sandbox/records.js';
import { issuePayload } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';
import { issues as declared } from './resource.js';

/**
 * Issues, served from their declaration: the lists (of a project, of a group with its subgroups, and everything the
 * caller can see) with the service's filters, one issue, creating one, and changing title, description,
 * confidentiality and state. Guests read and write them; the author or a Reporter changes one.
 */

const STATES = ['opened', 'closed', 'all'];
const ORDER_BY = ['created_at', 'updated_at', 'title', 'due_date', 'relative_position', 'priority', 'label_priority', 'popularity', 'weight'];

/** What an issue's answer has that is not stored: the sandbox tracks no labels, votes, tasks or links to others. */
const UNSTORED = {
  labels: [], assignees: [], type: 'ISSUE', user_notes_count: 0, merge_requests_count: 0, upvotes: 0, downvotes: 0, issue_type: 'issue',
  ...UNTRACKED, blocking_issues_count: 0, has_tasks: true, task_status: '0 of 0 checklist items completed', severity: 'UNKNOWN', imported: false, imported_from: 'none',
};

/** What an issue's answer has that it does not store (fields it leaves unset answer null). */
function computed(req: SandboxRequest, issue: Issue): Values {
  const project = projectById(req.db, issue.project_id)!;
  const api = `${req.baseUrl}/projects/${project.id}`;
  const self = `${api}/issues/${issue.iid}`;
  return {
    ...UNSTORED,
    ...authorAndCloser(req, issue),
    confidential: issue.confidential ?? false,
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/issues/${issue.iid}`,
    _links: { self, notes: `${self}/notes`, award_emoji: `${self}/award_emoji`, project: api, closed_as_duplicate_of: null },
    references: references(project, '#', issue.iid),
  };
}

/** A new issue: its title (required), description ("" when none), confidentiality; opened by the caller. */
function newIssue(req: SandboxRequest): Values {
  const title = String(required(req, 'title'));
  return { title, description: String(req.input.description ?? ''), state: 'opened', author_id: req.user!.id, confidential: Boolean(bool(req.input.confidential)) };
}

/** The issue as an update leaves it: only its author or a Reporter changes it. */
function edited(req: SandboxRequest, project: Project, issue: Issue): Values {
  if (issue.author_id !== req.user!.id && projectRole(req.db, req.user, project) < Role.reporter) throw errors.forbidden();
  const next: Issue & Values = { ...issue };
  if (req.input.title !== undefined) next.title = String(req.input.title);
  if (req.input.description !== undefined) next.description = String(req.input.description ?? '');
  next.confidential = bool(req.input.confidential) ?? next.confidential;
  applyStateEvent(req, next);
  return next;
}

const hookOf = (issue: Issue) => (issue.confidential ? 'confidential_issues_events' : 'issues_events');

/** An issue list's own filter: confidentiality. */
function byConfidentiality(list: Issue[], req: SandboxRequest): Issue[] {
  const confidential = bool(req.query.confidential);
  return confidential === undefined ? list : list.filter((issue) => Boolean(issue.confidential) === confidential);
}

export const issuesModule = crudModule<Issue>(declared, {
  ...issuableHooks<Issue>({
    table: issues, readRole: Role.guest, states: STATES, orderBy: ORDER_BY, filter: byConfidentiality,
    webhook: (req, project, issue, action) => fireProjectHooks(req, project, hookOf(issue), issuePayload(req, project, issue, action, req.user!)),
  }),
  input: (req, { parent }, previous) => (previous ? edited(req, parent as Project, previous) : newIssue(req)),
  computed: (issue, req) => computed(req, issue),
});
