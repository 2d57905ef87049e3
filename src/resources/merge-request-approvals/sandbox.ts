import { projectFor, projectRole, Role } from '../../sandbox/auth.js';
import { mergeRequestApprovals } from './resource.js';
import type { Db } from '../../sandbox/db.js';
import { created, errors, ok, type SandboxRequest, type Tier } from '../../sandbox/http.js';
import { approvalRules, mergeRequests, repositories, users, type Commit, type MergeRequest, type Project, type User } from '../../sandbox/model.js';
import { presentUserBasic } from '../../sandbox/present.js';
import { findCommit, reachable } from '../../sandbox/git/repository.js';
import { joinTrainIfScheduled, removeFromTrain } from '../../sandbox/merge-trains.js';
import type { SandboxModule } from '../../sandbox/module.js';
import {
  approvalSettings, approvalsLeft, approvalsRequired, findMergeRequest, refreshApprovalStatus, userPassword,
} from '../../sandbox/review.js';
import { mergeRequestPayload } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';
import { presentRecord, type Values } from '../../sandbox/records.js';

/**
 * The approvals of a merge request (spec 1, api-facts §1.2).
 * Approvals are tied to the merge request's HEAD: approving with another `sha` answers 409, and a push to the source
 * branch (pushToBranch below) clears them while reset_approvals_on_push is on.
 */

function approver(user: User, rootUrl: string): Record<string, unknown> {
  const { name, username, id, state, avatar_url, web_url } = presentUserBasic(user, rootUrl);
  return { name, username, id, state, avatar_url, web_url };
}

/** The commits of a first-parent history (none when the sha names no commit). */
function firstParentHistory(db: Db, projectId: number, sha: string | undefined): Commit[] {
  const head = sha ? findCommit(db, projectId, sha) : undefined;
  return head ? reachable(db, [head], { firstParent: true }) : [];
}

/** Authors of the commits the merge request adds (those of its head's first-parent history not on its target branch's). */
function committerEmails(db: Db, mr: MergeRequest): Set<string> {
  const target = repositories(db).find((r) => r.project_id === mr.project_id)?.branches[mr.target_branch];
  const onTarget = new Set(firstParentHistory(db, mr.project_id, target).map((c) => c.id));
  const added = firstParentHistory(db, mr.project_id, mr.sha).filter((c) => !onTarget.has(c.id));
  return new Set(added.flatMap((c) => [c.author_email.toLowerCase(), c.committer_email.toLowerCase()]));
}

/** Whether the user may approve now; eligibility rules of the project settings included. */
function canApprove(req: SandboxRequest, project: Project, mr: MergeRequest, user: User): boolean {
  if (mr.state !== 'opened' || mr.approved_by.includes(user.id)) return false;
  if (projectRole(req.db, user, project) < Role.developer) return false;
  const settings = approvalSettings(req.db, project.id);
  if (mr.author_id === user.id && !settings.merge_requests_author_approval) return false;
  if (settings.merge_requests_disable_committers_approval && committerEmails(req.db, mr).has(user.email.toLowerCase())) return false;
  return true;
}

/** What a merge request's approval state has beyond the merge request's own fields: approvals on the tier, approvers, the caller's part. */
function approvalsComputed(req: SandboxRequest, project: Project, mr: MergeRequest): Values {
  const settings = approvalSettings(req.db, project.id);
  const premium = req.tier !== 'free';
  return {
    approved: approvalsLeft(mr, req.tier) === 0,
    approvals_required: approvalsRequired(mr, req.tier),
    approvals_left: approvalsLeft(mr, req.tier),
    require_password_to_approve: settings.require_password_to_approve,
    approved_by: mr.approved_by
      .map((id) => users(req.db).find((u) => u.id === id))
      .filter((u): u is User => u !== undefined)
      .map((u) => ({ user: approver(u, req.rootUrl) })),
    suggested_approvers: [],
    approvers: [],
    approver_groups: [],
    user_has_approved: req.user ? mr.approved_by.includes(req.user.id) : false,
    user_can_approve: req.user ? canApprove(req, project, mr, req.user) : false,
    approval_rules_left: [],
    has_approval_rules: premium && approvalRules(req.db).some((r) => r.project_id === project.id),
    merge_request_approvers_available: premium,
    multiple_approval_rules_available: premium,
    invalid_approvers_rules: [],
  };
}

const presentedApprovals = (req: SandboxRequest, project: Project, mr: MergeRequest): Values =>
  presentRecord(mergeRequestApprovals, mr, approvalsComputed(req, project, mr));


function approvalsChanged(req: SandboxRequest, mr: MergeRequest): void {
  mr.updated_at = req.now().toISOString();
  refreshApprovalStatus(mr, req.tier);
  joinTrainIfScheduled(req, mr);
}

/**
 * What a push to `branch` does to the merge requests whose source branch it is: their HEAD moves to `sha`, and their
 * approvals are cleared when the project resets approvals on push (with selective code-owner removals only code
 * owners' approvals would go; the sandbox has no code owners, so those keep theirs). A merge request on a merge train
 * leaves it. Runs on every push through the API (onPush below); tests call it to move a branch directly.
 */
export function pushToBranch(db: Db, push: { projectId: number; branch: string; sha: string; now?: Date; tier?: Tier }): MergeRequest[] {
  const repository = repositories(db).find((r) => r.project_id === push.projectId);
  if (repository) repository.branches[push.branch] = push.sha;
  return followSourceBranch(db, push);
}

function followSourceBranch(db: Db, push: { projectId: number; branch: string; sha: string; now?: Date; tier?: Tier }): MergeRequest[] {
  const moved = mergeRequests(db).filter((m) => m.project_id === push.projectId && m.source_branch === push.branch && m.state === 'opened' && m.sha !== push.sha);
  for (const mr of moved) {
    mr.sha = push.sha;
    mr.updated_at = (push.now ?? new Date()).toISOString();
    if (approvalSettings(db, push.projectId).reset_approvals_on_push) mr.approved_by = [];
    refreshApprovalStatus(mr, push.tier ?? 'ultimate');
    removeFromTrain(db, mr);
  }
  return moved;
}

export const approvals: SandboxModule = {
  onPush(event, { db, tier }) {
    if (event.branch) followSourceBranch(db, { projectId: event.project.id, branch: event.branch, sha: event.after, now: event.at, tier });
  },
  routes(api) {
    const mr = mergeRequestApprovals.routes;

    api.route(mr.get, (req) => {
      const project = projectFor(req);
      return ok(presentedApprovals(req, project, findMergeRequest(req, project)));
    });

    api.route(mr.approve, (req) => {
      const project = projectFor(req);
      const request = findMergeRequest(req, project);
      if (projectRole(req.db, req.user, project) < Role.developer) throw errors.forbidden();
      const sha = req.input.sha as string | undefined;
      if (sha !== undefined && sha !== request.sha) throw errors.message(409, `SHA does not match HEAD of source branch: ${request.sha}`);
      const user = req.user!;
      if (approvalSettings(req.db, project.id).require_password_to_approve && req.input.approval_password !== userPassword(user)) throw errors.unauthorized();
      if (!canApprove(req, project, request, user)) throw errors.unauthorized();
      request.approved_by.push(user.id);
      approvalsChanged(req, request);
      fireProjectHooks(req, project, 'merge_requests_events', mergeRequestPayload(req, project, request, 'approved', user));
      return created(presentedApprovals(req, project, request));
    });

    api.route(mr.unapprove, (req) => {
      const project = projectFor(req);
      const request = findMergeRequest(req, project);
      if (projectRole(req.db, req.user, project) < Role.developer) throw errors.forbidden();
      const index = request.approved_by.indexOf(req.user!.id);
      if (index < 0) throw errors.notFound();
      request.approved_by.splice(index, 1);
      approvalsChanged(req, request);
      fireProjectHooks(req, project, 'merge_requests_events', mergeRequestPayload(req, project, request, 'unapproved', req.user!));
      return created(presentedApprovals(req, project, request));
    });

    // Only bot users of project and group access tokens may reset; people get 401 (spec 1, Errors).
    api.route(mr.reset, (req) => {
      const project = projectFor(req);
      const request = findMergeRequest(req, project);
      if (!req.user?.bot || projectRole(req.db, req.user, project) < Role.developer || request.state === 'merged') throw errors.unauthorized();
      request.approved_by = [];
      approvalsChanged(req, request);
      // The endpoint ends with Grape's `status :accepted`, whose value (202) becomes the JSON body.
      return { status: 202, body: 202 };
    });

  },
};
