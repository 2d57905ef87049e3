import { issues as declaredIssues } from '../issues/resource.js';
import { mergeRequests as declaredMergeRequests } from './resource.js';
import { findGroup, groupRole, openToCaller, projectFor, projectRole, requireUser, Role } from '../../sandbox/auth.js';
import { findCommit, isAncestor, mergeBase, reachable, resolveRevision } from '../../sandbox/git/repository.js';
import type { Db } from '../../sandbox/db.js';
import { descendantGroups } from '../../sandbox/hierarchy.js';
import { bool, created, errors, HttpError, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import { intList, matches, ordering, sortRecords, timeParam } from '../../sandbox/listing.js';
import { approvalRules, issues, mergeRequests, projects, users, type Issue, type MergeRequest, type Project } from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { issuePayload, mergeRequestPayload } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';
import { mergeRequestHead, projectOf, refreshApprovalStatus } from '../../sandbox/review.js';

/**
 * Merge requests and issues: the lists (of a project, of a group with its subgroups, and everything the caller can
 * see) with the service's filters, single records, creating them, and changing title, description and state.
 */

const MR_STATES = ['opened', 'closed', 'locked', 'merged', 'all'];
const ISSUE_STATES = ['opened', 'closed', 'all'];

/** Merge requests and issues of a private project need Reporter (Guest for issues); public and internal ones are open to viewers. */
function canRead(req: SandboxRequest, project: Project, minRole: number): boolean {
  return projectRole(req.db, req.user, project) >= minRole || openToCaller(req, project.visibility);
}

const reference = (project: Project, sign: string, iid: number) => ({
  short: `${sign}${iid}`, relative: `${sign}${iid}`, full: `${project.path_with_namespace}${sign}${iid}`,
});
const timeStats = { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null };

export function presentMergeRequest(req: SandboxRequest, mr: MergeRequest, detail = false): Record<string, unknown> {
  const project = projectOf(req.db, mr.project_id);
  const author = users(req.db).find((u) => u.id === mr.author_id);
  const closedBy = mr.closed_by_id === undefined ? undefined : users(req.db).find((u) => u.id === mr.closed_by_id);
  const record: Record<string, unknown> = {
    ...mergeRequestHead(mr),
    merged_by: null,
    merge_user: null,
    merged_at: mr.merged_at ?? null,
    closed_by: closedBy ? presentUserBasic(closedBy, req.rootUrl) : null,
    closed_at: mr.closed_at ?? null,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author: author ? presentUserBasic(author, req.rootUrl) : null,
    assignees: [],
    assignee: null,
    reviewers: [],
    source_project_id: mr.project_id,
    target_project_id: mr.project_id,
    labels: [],
    draft: /^(draft:|\[draft\]|\(draft\))/i.test(mr.title),
    work_in_progress: /^(draft:|\[draft\]|\(draft\))/i.test(mr.title),
    milestone: null,
    merge_when_pipeline_succeeds: false,
    merge_status: mr.merge_status,
    detailed_merge_status: mr.detailed_merge_status,
    sha: mr.sha,
    merge_commit_sha: null,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: false,
    prepared_at: mr.created_at,
    reference: `!${mr.iid}`,
    references: reference(project, '!', mr.iid),
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/merge_requests/${mr.iid}`,
    time_stats: timeStats,
    squash: false,
    squash_on_merge: false,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: false,
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
  if (detail) {
    const target = resolveRevision(req.db, project, mr.target_branch);
    Object.assign(record, {
      subscribed: false,
      changes_count: null,
      latest_build_started_at: null,
      latest_build_finished_at: null,
      first_deployed_to_production_at: null,
      pipeline: null,
      head_pipeline: null,
      diff_refs: { base_sha: target?.id ?? null, head_sha: mr.sha, start_sha: target?.id ?? null },
      merge_error: null,
      first_contribution: false,
      user: { can_merge: projectRole(req.db, req.user, project) >= Role.developer },
    });
  }
  return record;
}

export function presentIssue(req: SandboxRequest, issue: Issue): Record<string, unknown> {
  const project = projectOf(req.db, issue.project_id);
  const author = users(req.db).find((u) => u.id === issue.author_id);
  const closedBy = issue.closed_by_id === undefined ? undefined : users(req.db).find((u) => u.id === issue.closed_by_id);
  const api = `${req.baseUrl}/projects/${project.id}`;
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at ?? null,
    closed_by: closedBy ? presentUserBasic(closedBy, req.rootUrl) : null,
    labels: [],
    milestone: null,
    assignees: [],
    author: author ? presentUserBasic(author, req.rootUrl) : null,
    type: 'ISSUE',
    assignee: null,
    user_notes_count: 0,
    merge_requests_count: 0,
    upvotes: 0,
    downvotes: 0,
    due_date: null,
    confidential: issue.confidential ?? false,
    discussion_locked: null,
    issue_type: 'issue',
    web_url: `${req.rootUrl}/${project.path_with_namespace}/-/issues/${issue.iid}`,
    time_stats: timeStats,
    task_completion_status: { count: 0, completed_count: 0 },
    weight: null,
    blocking_issues_count: 0,
    has_tasks: true,
    task_status: '0 of 0 checklist items completed',
    _links: { self: `${api}/issues/${issue.iid}`, notes: `${api}/issues/${issue.iid}/notes`, award_emoji: `${api}/issues/${issue.iid}/award_emoji`, project: api, closed_as_duplicate_of: null },
    references: reference(project, '#', issue.iid),
    severity: 'UNKNOWN',
    moved_to_id: null,
    imported: false,
    imported_from: 'none',
    service_desk_reply_to: null,
  };
}

/** The projects a list covers, each checked for the caller's right to read. */
type Scope = { projects: Project[]; defaultScope: 'all' | 'created_by_me' };

function projectScope(req: SandboxRequest): Scope {
  return { projects: [projectFor(req)], defaultScope: 'all' };
}

function groupScope(req: SandboxRequest): Scope {
  const group = findGroup(req.db, req.params.group);
  if (groupRole(req.db, req.user, group) === 0 && group.visibility === 'private') throw errors.notFound('Group');
  const ids = new Set([group.id, ...(bool(req.query.include_subgroups) === false ? [] : descendantGroups(req.db, group.id).map((g) => g.id))]);
  return { projects: projects(req.db).filter((p) => ids.has(p.namespace_id)), defaultScope: 'all' };
}

function globalScope(req: SandboxRequest): Scope {
  requireUser(req);
  return { projects: projects(req.db), defaultScope: 'created_by_me' };
}

/** Filters shared by merge requests and issues: state, scope, author, iids, search, dates; then ordering. */
function filterCommon<T extends MergeRequest | Issue>(req: SandboxRequest, scope: Scope, list: T[], states: string[], minRole: number, orderBy: readonly string[]): T[] {
  const q = req.query;
  const readable = new Set(scope.projects.filter((p) => canRead(req, p, minRole)).map((p) => p.id));
  let out = list.filter((record) => readable.has(record.project_id));
  const state = String(q.state ?? 'all');
  if (!states.includes(state)) throw errors.invalid('state');
  if (state !== 'all') out = out.filter((record) => record.state === state);
  const scopeParam = String(q.scope ?? scope.defaultScope).replace(/-/g, '_');
  if (!['created_by_me', 'assigned_to_me', 'all', 'reviews_for_me'].includes(scopeParam)) throw errors.invalid('scope');
  if (scopeParam === 'created_by_me') out = req.user ? out.filter((record) => record.author_id === req.user!.id) : [];
  if (scopeParam === 'assigned_to_me' || scopeParam === 'reviews_for_me') out = []; // the sandbox assigns no one
  const authorId = int(q.author_id, 'author_id');
  if (authorId !== undefined) out = out.filter((record) => record.author_id === authorId);
  if (q.author_username) out = out.filter((record) => users(req.db).find((u) => u.id === record.author_id)?.username === String(q.author_username));
  const iids = intList(q.iids, 'iids');
  if (iids) out = out.filter((record) => iids.includes(record.iid));
  if (q.search) out = out.filter((record) => matches(q.search, record.title, record.description));
  for (const [name, field, direction] of [
    ['created_after', 'created_at', 1], ['created_before', 'created_at', -1], ['updated_after', 'updated_at', 1], ['updated_before', 'updated_at', -1],
  ] as const) {
    const bound = timeParam(req, name);
    if (bound !== undefined) out = out.filter((record) => Math.sign(Date.parse(record[field]) - bound) === direction);
  }
  const { orderBy: by, sort } = ordering(req, orderBy, { orderBy: 'created_at', sort: 'desc' });
  return sortRecords(out, (record) => (by === 'title' ? record.title.toLowerCase() : ((record as unknown as Record<string, string>)[by] ?? record.created_at)), sort);
}

function listMergeRequests(req: SandboxRequest, scope: Scope) {
  let list = filterCommon(req, scope, mergeRequests(req.db), MR_STATES, Role.reporter, ['created_at', 'updated_at', 'title', 'merged_at']);
  const q = req.query;
  if (q.source_branch) list = list.filter((mr) => mr.source_branch === String(q.source_branch));
  if (q.target_branch) list = list.filter((mr) => mr.target_branch === String(q.target_branch));
  const wip = q.wip === undefined ? undefined : String(q.wip);
  if (wip !== undefined) list = list.filter((mr) => /^(draft:|\[draft\]|\(draft\))/i.test(mr.title) === (wip === 'yes'));
  if (q.view === 'simple') {
    return paginate(req, list, { present: (mr) => { const full = presentMergeRequest(req, mr); return { id: full.id, iid: full.iid, project_id: full.project_id, title: full.title, description: full.description, state: full.state, created_at: full.created_at, updated_at: full.updated_at, web_url: full.web_url }; } });
  }
  return paginate(req, list, { present: (mr) => presentMergeRequest(req, mr) });
}

/**
 * The commits of a merge request: those of its head the target branch did not have where they parted (for a merged
 * one, still its head's own when the target holds it now).
 */
function mergeRequestCommits(db: Db, project: Project, mr: MergeRequest) {
  const head = findCommit(db, project.id, mr.sha);
  const target = resolveRevision(db, project, mr.target_branch);
  if (!head) return [];
  if (!target) return reachable(db, [head]);
  if (mr.state === 'merged' && isAncestor(db, head, target)) return [head];
  const base = mergeBase(db, [head, target]);
  const before = new Set(base ? reachable(db, [base]).map((c) => c.id) : []);
  return reachable(db, [head]).filter((c) => !before.has(c.id));
}

function listIssues(req: SandboxRequest, scope: Scope) {
  let list = filterCommon(req, scope, issues(req.db), ISSUE_STATES, Role.guest, ['created_at', 'updated_at', 'title', 'due_date', 'relative_position', 'priority', 'label_priority', 'popularity', 'weight']);
  const confidential = bool(req.query.confidential);
  if (confidential !== undefined) list = list.filter((issue) => Boolean(issue.confidential) === confidential);
  return paginate(req, list, { present: (issue) => presentIssue(req, issue) });
}

function findIssue(req: SandboxRequest, project: Project): Issue {
  if (!canRead(req, project, Role.guest)) throw errors.notFound('Issue');
  const issue = issues(req.db).find((i) => i.project_id === project.id && String(i.iid) === req.params.issue_iid);
  if (!issue) throw errors.notFound('Issue');
  return issue;
}

function findMr(req: SandboxRequest, project: Project): MergeRequest {
  if (!canRead(req, project, Role.reporter)) throw errors.notFound('Merge Request');
  const mr = mergeRequests(req.db).find((m) => m.project_id === project.id && String(m.iid) === req.params.merge_request_iid);
  if (!mr) throw errors.notFound('Merge Request');
  return mr;
}

const nextIid = (table: Array<{ project_id: number; iid: number }>, projectId: number): number =>
  Math.max(0, ...table.filter((r) => r.project_id === projectId).map((r) => r.iid)) + 1;

/** `state_event` close or reopen, as both resources take it. */
function applyStateEvent(req: SandboxRequest, record: MergeRequest | Issue): void {
  const event = req.input.state_event;
  if (event === undefined) return;
  if (event !== 'close' && event !== 'reopen') throw errors.invalid('state_event');
  if (record.state === 'merged') return;
  if (event === 'close' && record.state === 'opened') Object.assign(record, { state: 'closed', closed_at: req.now().toISOString(), closed_by_id: req.user!.id });
  if (event === 'reopen' && record.state === 'closed') Object.assign(record, { state: 'opened', closed_at: null, closed_by_id: undefined });
}

export const mergeRequestsModule: SandboxModule = {
  routes(api) {
    const mrs = declaredMergeRequests.parents;
    const issueAt = declaredIssues.parents;
    api.route(mrs.project.routes.list, (req) => listMergeRequests(req, projectScope(req)), { auth: 'optional' });
    api.route(mrs.group.routes.list, (req) => listMergeRequests(req, groupScope(req)), { auth: 'optional' });
    api.route(mrs.instance.routes.list, (req) => listMergeRequests(req, globalScope(req)));
    api.route(mrs.project.routes.get, (req) => ok(presentMergeRequest(req, findMr(req, projectFor(req)), true)), { auth: 'optional' });
    api.route(mrs.project.routes.ofCommit, (req) => {
      const project = projectFor(req, Role.reporter);
      const commit = resolveRevision(req.db, project, req.params.sha);
      if (!commit) throw errors.notFound('Commit');
      const list = mergeRequests(req.db).filter((mr) => mr.project_id === project.id && mergeRequestCommits(req.db, project, mr).some((c) => c.id === commit.id));
      return paginate(req, list, { present: (mr) => presentMergeRequest(req, mr) });
    });

    api.route(mrs.project.routes.create, (req) => {
      const project = projectFor(req, Role.developer);
      const source = String(required(req, 'source_branch'));
      const target = String(required(req, 'target_branch'));
      const title = String(required(req, 'title'));
      const head = resolveRevision(req.db, project, source);
      const problems: string[] = [];
      if (!head) problems.push('Source branch does not exist');
      if (!resolveRevision(req.db, project, target)) problems.push('Target branch does not exist');
      if (source === target) problems.push('You can\'t use same project/branch for source and target');
      const open = mergeRequests(req.db).find((m) => m.project_id === project.id && m.source_branch === source && m.target_branch === target && m.state === 'opened');
      // Branch problems answer with an array of messages: 409 for a duplicate, 422 otherwise.
      if (open) throw new HttpError(409, { message: [`Another open merge request already exists for this source branch: !${open.iid}`] });
      if (problems.length) throw new HttpError(422, { message: problems });
      const at = req.now().toISOString();
      const rules = approvalRules(req.db).filter((r) => r.project_id === project.id);
      const mr: MergeRequest = {
        id: req.db.nextId('merge_requests'), iid: nextIid(mergeRequests(req.db), project.id), project_id: project.id, title,
        description: req.input.description === undefined ? null : String(req.input.description), state: 'opened', source_branch: source,
        target_branch: target, sha: head!.id, author_id: req.user!.id, created_at: at, updated_at: at, merge_status: 'can_be_merged',
        detailed_merge_status: 'mergeable', approvals_required: Math.max(0, ...rules.map((r) => r.approvals_required)), approved_by: [],
      };
      refreshApprovalStatus(mr, req.tier);
      mergeRequests(req.db).push(mr);
      fireProjectHooks(req, project, 'merge_requests_events', mergeRequestPayload(req, project, mr, 'open', req.user!));
      return created(presentMergeRequest(req, mr, true));
    });

    api.route(mrs.project.routes.update, (req) => {
      const project = projectFor(req, Role.developer);
      const mr = findMr(req, project);
      if (req.input.title !== undefined) mr.title = String(req.input.title);
      if (req.input.description !== undefined) mr.description = req.input.description === null ? null : String(req.input.description);
      if (req.input.target_branch !== undefined) {
        if (!resolveRevision(req.db, project, String(req.input.target_branch))) throw new HttpError(422, { message: ['Target branch does not exist'] });
        mr.target_branch = String(req.input.target_branch);
      }
      const before = mr.state;
      applyStateEvent(req, mr);
      mr.updated_at = req.now().toISOString();
      fireProjectHooks(req, project, 'merge_requests_events', mergeRequestPayload(req, project, mr, hookAction(before, mr.state), req.user!));
      return ok(presentMergeRequest(req, mr, true));
    });

    // Only administrators and the project's owners delete merge requests; the answer is 204.
    api.route(mrs.project.routes.delete, (req) => {
      const project = projectFor(req);
      const mr = findMr(req, project);
      if (projectRole(req.db, req.user, project) < Role.owner) throw errors.forbidden();
      const table = mergeRequests(req.db);
      table.splice(table.indexOf(mr), 1);
      return noContent();
    });

    api.route(issueAt.project.routes.list, (req) => listIssues(req, projectScope(req)), { auth: 'optional' });
    api.route(issueAt.group.routes.list, (req) => listIssues(req, groupScope(req)), { auth: 'optional' });
    api.route(issueAt.instance.routes.list, (req) => listIssues(req, globalScope(req)));
    api.route(issueAt.project.routes.get, (req) => ok(presentIssue(req, findIssue(req, projectFor(req)))), { auth: 'optional' });

    api.route(issueAt.project.routes.create, (req) => {
      const project = projectFor(req, Role.guest);
      const title = String(required(req, 'title'));
      const at = req.now().toISOString();
      const issue: Issue = {
        id: req.db.nextId('issues'), iid: nextIid(issues(req.db), project.id), project_id: project.id, title,
        description: String(req.input.description ?? ''), state: 'opened', author_id: req.user!.id, created_at: at, updated_at: at,
        confidential: Boolean(bool(req.input.confidential)),
      };
      issues(req.db).push(issue);
      fireProjectHooks(req, project, issue.confidential ? 'confidential_issues_events' : 'issues_events', issuePayload(req, project, issue, 'open', req.user!));
      return created(presentIssue(req, issue));
    });

    api.route(issueAt.project.routes.update, (req) => {
      const project = projectFor(req, Role.guest);
      const issue = findIssue(req, project);
      if (issue.author_id !== req.user!.id && projectRole(req.db, req.user, project) < Role.reporter) throw errors.forbidden();
      if (req.input.title !== undefined) issue.title = String(req.input.title);
      if (req.input.description !== undefined) issue.description = String(req.input.description ?? '');
      const confidential = bool(req.input.confidential);
      if (confidential !== undefined) issue.confidential = confidential;
      const before = issue.state;
      applyStateEvent(req, issue);
      issue.updated_at = req.now().toISOString();
      fireProjectHooks(req, project, issue.confidential ? 'confidential_issues_events' : 'issues_events', issuePayload(req, project, issue, hookAction(before, issue.state), req.user!));
      return ok(presentIssue(req, issue));
    });
  },
};

/** The `action` of a webhook payload for a change from one state to another. */
function hookAction(before: string, after: string): string {
  if (before === after) return 'update';
  return { closed: 'close', opened: 'reopen', merged: 'merge' }[after] ?? 'update';
}

export { mergeRequestsModule as mergeRequests };
