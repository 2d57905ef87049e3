import { projectFor, projectRole, Role } from '../../sandbox/auth.js';
import { bool, created, errors, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import {
  applyStateEvent, filterIssuables, findIssuable, hookAction, issuableLists, nextIid, references, UNTRACKED, type Scope,
} from '../../sandbox/issuables.js';
import { issues, users, type Issue, type Project } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { presentRecord, type Values } from '../../sandbox/records.js';
import { projectOf } from '../../sandbox/review.js';
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
  const project = projectOf(req.db, issue.project_id);
  const author = users(req.db).find((u) => u.id === issue.author_id);
  const closedBy = issue.closed_by_id === undefined ? undefined : users(req.db).find((u) => u.id === issue.closed_by_id);
  const api = `${req.baseUrl}/projects/${project.id}`;
  const self = `${api}/issues/${issue.iid}`;
  return {
    ...UNSTORED,
    closed_by: closedBy ? presentUserBasic(closedBy, req.rootUrl) : null,
    author: author ? presentUserBasic(author, req.rootUrl) : null,
    confidential: issue.confidential ?? false,
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/issues/${issue.iid}`,
    _links: { self, notes: `${self}/notes`, award_emoji: `${self}/award_emoji`, project: api, closed_as_duplicate_of: null },
    references: references(project, '#', issue.iid),
  };
}

const presented = (req: SandboxRequest, issue: Issue): Values => presentRecord(declared, issue, computed(req, issue));


function list(req: SandboxRequest, scope: Scope) {
  let listed = filterIssuables(req, scope, issues(req.db), STATES, Role.guest, ORDER_BY);
  const confidential = bool(req.query.confidential);
  if (confidential !== undefined) listed = listed.filter((issue) => Boolean(issue.confidential) === confidential);
  return paginate(req, listed, { present: (issue) => presented(req, issue) });
}

const find = (req: SandboxRequest, project: Project): Issue => findIssuable(req, project, issues(req.db), { param: 'issue_iid', noun: 'Issue', minRole: Role.guest });

const hookOf = (issue: Issue) => (issue.confidential ? 'confidential_issues_events' : 'issues_events');

function create(req: SandboxRequest) {
  const project = projectFor(req, Role.guest);
  const title = String(required(req, 'title'));
  const at = req.now().toISOString();
  const issue: Issue = {
    id: req.db.nextId('issues'), iid: nextIid(issues(req.db), project.id), project_id: project.id, title,
    description: String(req.input.description ?? ''), state: 'opened', author_id: req.user!.id, created_at: at, updated_at: at,
    confidential: Boolean(bool(req.input.confidential)),
  };
  issues(req.db).push(issue);
  fireProjectHooks(req, project, hookOf(issue), issuePayload(req, project, issue, 'open', req.user!));
  return created(presented(req, issue));
}

function update(req: SandboxRequest) {
  const project = projectFor(req, Role.guest);
  const issue = find(req, project);
  if (issue.author_id !== req.user!.id && projectRole(req.db, req.user, project) < Role.reporter) throw errors.forbidden();
  if (req.input.title !== undefined) issue.title = String(req.input.title);
  if (req.input.description !== undefined) issue.description = String(req.input.description ?? '');
  const confidential = bool(req.input.confidential);
  if (confidential !== undefined) issue.confidential = confidential;
  const before = issue.state;
  applyStateEvent(req, issue);
  issue.updated_at = req.now().toISOString();
  fireProjectHooks(req, project, hookOf(issue), issuePayload(req, project, issue, hookAction(before, issue.state), req.user!));
  return ok(presented(req, issue));
}

export const issuesModule: SandboxModule = {
  routes(api) {
    const { project } = declared.parents;
    issuableLists(api, declared.parents, list);
    api.route(project.routes.get, (req) => ok(presented(req, find(req, projectFor(req)))), { auth: 'optional' });
    api.route(project.routes.create, create);
    api.route(project.routes.update, update);
  },
};
