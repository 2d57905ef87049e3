import { mergeRequests as declared } from './resource.js';
import { projectFor, projectRole, Role } from '../../sandbox/auth.js';
import { crudModule } from '../../sandbox/crud.js';
import { findCommit, isAncestor, mergeBase, reachable, resolveRevision } from '../../sandbox/git/repository.js';
import type { Db } from '../../sandbox/db.js';
import { errors, HttpError, noContent, required, type SandboxRequest } from '../../sandbox/http.js';
import { applyStateEvent, authorAndCloser, issuableHooks, references, UNTRACKED } from '../../sandbox/issuables.js';
import { approvalRules, mergeRequests, type MergeRequest, type Project } from '../../sandbox/model.js';
import { projectById } from '../../sandbox/hierarchy.js';
import { paginate } from '../../sandbox/pagination.js';
import { mergeRequestPayload } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';
import { mergeRequestUrl, refreshApprovalStatus, SIMPLE_VIEW } from '../../sandbox/review.js';
import { found, presentRecord, type Values } from '../../sandbox/records.js';

/**
 * Merge requests, served from their declaration: the lists (of a project, of a group with its subgroups, and
 * everything the caller can see) with the service's filters, single records, creating them, and changing title,
 * description, target branch and state; the merge requests a commit is in; deleting (owners).
 */

const MR_STATES = ['opened', 'closed', 'locked', 'merged', 'all'];

const DRAFT = /^(draft:|\[draft\]|\(draft\))/i;

/** A list's merge requests go without the fields of a single one: those from `subscribed` on. */
const names = Object.keys(declared.fields);
const LISTED = { fields: declared.fields, without: names.slice(names.indexOf('subscribed')) };

/** What a merge request's answer has that is not stored (fields it leaves unset answer null). */
function computed(req: SandboxRequest, mr: MergeRequest): Values {
  const project = projectById(req.db, mr.project_id)!;
  const target = resolveRevision(req.db, project, mr.target_branch);
  return {
    ...authorAndCloser(req, mr),
    user_notes_count: 0, upvotes: 0, downvotes: 0,
    assignees: [], reviewers: [], labels: [],
    source_project_id: mr.project_id, target_project_id: mr.project_id,
    draft: DRAFT.test(mr.title), work_in_progress: DRAFT.test(mr.title),
    merge_when_pipeline_succeeds: false, force_remove_source_branch: false,
    prepared_at: mr.created_at,
    reference: `!${mr.iid}`, references: references(project, '!', mr.iid),
    web_url: mergeRequestUrl(req.rootUrl, project, mr),
    ...UNTRACKED,
    squash: false, squash_on_merge: false, has_conflicts: false, blocking_discussions_resolved: true,
    subscribed: false, first_contribution: false,
    diff_refs: { base_sha: target?.id ?? null, head_sha: mr.sha, start_sha: target?.id ?? null },
    user: { can_merge: projectRole(req.db, req.user, project) >= Role.developer },
  };
}

/** A merge request list's own filters: its branches and whether it is a draft. */
function byBranchAndDraft(list: MergeRequest[], req: SandboxRequest): MergeRequest[] {
  const q = req.query;
  if (q.source_branch) list = list.filter((mr) => mr.source_branch === String(q.source_branch));
  if (q.target_branch) list = list.filter((mr) => mr.target_branch === String(q.target_branch));
  const wip = q.wip === undefined ? undefined : String(q.wip);
  if (wip !== undefined) list = list.filter((mr) => DRAFT.test(mr.title) === (wip === 'yes'));
  return list;
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

/** The merge requests a commit is in. */
function ofCommit(req: SandboxRequest) {
  const project = projectFor(req, Role.reporter);
  const commit = found(resolveRevision(req.db, project, req.params.sha), 'Commit');
  const list = mergeRequests(req.db).filter((mr) => mr.project_id === project.id && mergeRequestCommits(req.db, project, mr).some((c) => c.id === commit.id));
  return paginate(req, list, { present: (mr) => presentRecord(LISTED, mr, computed(req, mr)) });
}

/** A new merge request: both branches must exist and differ, and no open one may join them already. */
function newMergeRequest(req: SandboxRequest, project: Project): Values {
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
  const rules = approvalRules(req.db).filter((r) => r.project_id === project.id);
  const mr = {
    title, description: req.input.description === undefined ? null : String(req.input.description), state: 'opened' as const, source_branch: source,
    target_branch: target, sha: head!.id, author_id: req.user!.id, merge_status: 'can_be_merged',
    detailed_merge_status: 'mergeable', approvals_required: Math.max(0, ...rules.map((r) => r.approvals_required)), approved_by: [] as number[],
  };
  refreshApprovalStatus(mr, req.tier);
  return mr;
}

/** Title, description, target branch and state as an update changes them. */
function edited(req: SandboxRequest, project: Project, mr: MergeRequest): Values {
  const next: MergeRequest & Values = { ...mr };
  if (req.input.title !== undefined) next.title = String(req.input.title);
  if (req.input.description !== undefined) next.description = req.input.description === null ? null : String(req.input.description);
  if (req.input.target_branch !== undefined) {
    if (!resolveRevision(req.db, project, String(req.input.target_branch))) throw new HttpError(422, { message: ['Target branch does not exist'] });
    next.target_branch = String(req.input.target_branch);
  }
  applyStateEvent(req, next);
  return next;
}

export const mergeRequestsModule = crudModule<MergeRequest>(declared, {
  ...issuableHooks<MergeRequest>({
    table: mergeRequests, readRole: Role.reporter, states: MR_STATES, orderBy: ['created_at', 'updated_at', 'title', 'merged_at'], filter: byBranchAndDraft,
    webhook: (req, project, mr, action) => fireProjectHooks(req, project, 'merge_requests_events', mergeRequestPayload(req, project, mr, action, req.user!)),
  }),
  listedAs: (req) => (req.query.view === 'simple' ? SIMPLE_VIEW : LISTED),
  input: (req, { parent }, previous) => (previous ? edited(req, parent as Project, previous) : newMergeRequest(req, parent as Project)),
  computed: (mr, req) => computed(req, mr),
  servedElsewhere: [declared.parents.project.routes.delete],
  routes(api) {
    api.route(declared.parents.project.routes.ofCommit, ofCommit);
    // Only administrators and the project's owners delete merge requests; the answer is 204.
    api.route(declared.parents.project.routes.delete, (req) => {
      const project = projectFor(req);
      const mr = mergeRequestsModule.find(req, project);
      if (projectRole(req.db, req.user, project) < Role.owner) throw errors.forbidden();
      const table = mergeRequests(req.db);
      table.splice(table.indexOf(mr), 1);
      return noContent();
    });
  },
});
