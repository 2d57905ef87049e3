import { findProject, groupRole, projectFor, projectRole, requireTier, Role } from '../../sandbox/auth.js';
import { approvalRules as declaredRules } from '../approval-rules/resource.js';
import { approvalSettings as declaredSettings } from '../approval-settings/resource.js';
import { mergeRequestApprovals } from './resource.js';
import type { Db } from '../../sandbox/db.js';
import { array, bool, created, errors, int, noContent, ok, type SandboxRequest, type Tier } from '../../sandbox/http.js';
import {
  approvalRules, groups, mergeRequests, protectedBranches, repositories, users,
  type ApprovalRule, type ApprovalSettings, type MergeRequest, type Project, type User,
} from '../../sandbox/model.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentGroup, presentUserBasic } from '../../sandbox/present.js';
import { findCommit } from '../../sandbox/git/repository.js';
import { joinTrainIfScheduled, removeFromTrain } from '../../sandbox/merge-trains.js';
import type { SandboxModule } from '../../sandbox/module.js';
import {
  approvalSettings, approvalsLeft, approvalsRequired, eligibleApprovers, findMergeRequest, mergeRequestHead, presentProtectedBranch,
  refreshApprovalStatus, userPassword,
} from '../../sandbox/review.js';
import { mergeRequestPayload } from '../../sandbox/webhook-payloads.js';
import { fireProjectHooks } from '../../sandbox/webhooks.js';

/**
 * Merge request approvals, the project approval configuration and project approval rules (spec 1, api-facts §1.2).
 * Approvals are tied to the merge request's HEAD: approving with another `sha` answers 409, and a push to the source
 * branch (pushToBranch below) clears them while reset_approvals_on_push is on.
 */

const BOOLEAN_SETTINGS = [
  'reset_approvals_on_push', 'selective_code_owner_removals', 'disable_overriding_approvers_per_merge_request',
  'merge_requests_author_approval', 'merge_requests_disable_committers_approval', 'require_password_to_approve',
] as const;

function presentSettings(settings: ApprovalSettings): Record<string, unknown> {
  return {
    approvers: [],
    approver_groups: [],
    approvals_before_merge: settings.approvals_before_merge,
    reset_approvals_on_push: settings.reset_approvals_on_push,
    selective_code_owner_removals: settings.selective_code_owner_removals,
    disable_overriding_approvers_per_merge_request: settings.disable_overriding_approvers_per_merge_request,
    merge_requests_author_approval: settings.merge_requests_author_approval,
    merge_requests_disable_committers_approval: settings.merge_requests_disable_committers_approval,
    require_password_to_approve: settings.require_password_to_approve,
    require_reauthentication_to_approve: settings.require_password_to_approve,
  };
}

function approver(user: User, rootUrl: string): Record<string, unknown> {
  const { name, username, id, state, avatar_url, web_url } = presentUserBasic(user, rootUrl);
  return { name, username, id, state, avatar_url, web_url };
}

/** Authors of the commits the merge request adds (those not already on its target branch). */
function committerEmails(db: Db, mr: MergeRequest): Set<string> {
  const target = repositories(db).find((r) => r.project_id === mr.project_id)?.branches[mr.target_branch];
  const onTarget = new Set<string>();
  for (let c = target ? findCommit(db, mr.project_id, target) : undefined; c; c = c.parent_ids[0] ? findCommit(db, mr.project_id, c.parent_ids[0]) : undefined) onTarget.add(c.id);
  const emails = new Set<string>();
  for (let c = findCommit(db, mr.project_id, mr.sha); c && !onTarget.has(c.id); c = c.parent_ids[0] ? findCommit(db, mr.project_id, c.parent_ids[0]) : undefined) {
    emails.add(c.author_email.toLowerCase());
    emails.add(c.committer_email.toLowerCase());
  }
  return emails;
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

function presentApprovals(req: SandboxRequest, project: Project, mr: MergeRequest): Record<string, unknown> {
  const settings = approvalSettings(req.db, project.id);
  const premium = req.tier !== 'free';
  return {
    ...mergeRequestHead(mr),
    merge_status: mr.merge_status,
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

// ----- approval rules -----

function presentRule(req: SandboxRequest, rule: ApprovalRule): Record<string, unknown> {
  const branches = rule.applies_to_all_protected_branches
    ? protectedBranches(req.db).filter((b) => b.project_id === rule.project_id)
    : protectedBranches(req.db).filter((b) => rule.protected_branch_ids.includes(b.id));
  return {
    id: rule.id,
    name: rule.name,
    rule_type: rule.rule_type,
    report_type: rule.report_type,
    eligible_approvers: eligibleApprovers(req.db, rule).map((u) => presentUserBasic(u, req.rootUrl)),
    approvals_required: rule.approvals_required,
    users: users(req.db).filter((u) => rule.user_ids.includes(u.id)).map((u) => presentUserBasic(u, req.rootUrl)),
    groups: groups(req.db).filter((g) => rule.group_ids.includes(g.id)).map((g) => presentGroup(g, req.db, req.rootUrl)),
    contains_hidden_groups: false,
    protected_branches: branches.map((branch) => presentProtectedBranch(req.db, branch)),
    applies_to_all_protected_branches: rule.applies_to_all_protected_branches,
  };
}

const RULE_TYPES = ['regular', 'any_approver', 'report_approver', 'code_owner'] as const;
const REPORT_TYPES = ['code_coverage', 'license_scanning'];

/** Applies the rule parameters of a create or update request, validated as the service does. */
function applyRuleParams(req: SandboxRequest, project: Project, rule: ApprovalRule): void {
  const input = req.input;
  if (input.name !== undefined) rule.name = String(input.name);
  const required = int(input.approvals_required, 'approvals_required');
  if (required !== undefined) rule.approvals_required = required;
  if (input.rule_type !== undefined) {
    if (!(RULE_TYPES as readonly string[]).includes(String(input.rule_type))) throw errors.invalid('rule_type');
    rule.rule_type = input.rule_type as ApprovalRule['rule_type'];
  }
  if (input.report_type !== undefined) {
    if (!REPORT_TYPES.includes(String(input.report_type))) throw errors.invalid('report_type');
    rule.report_type = String(input.report_type) as ApprovalRule['report_type'];
    rule.rule_type = 'report_approver';
  }
  const allBranches = bool(input.applies_to_all_protected_branches);
  if (allBranches !== undefined) rule.applies_to_all_protected_branches = allBranches;

  // Unknown or invisible users, groups and branches are dropped, as the service filters them.
  const userIds = array(input.user_ids)?.map(Number);
  const usernames = array(input.usernames);
  if (userIds !== undefined || usernames !== undefined) {
    const wanted = users(req.db).filter((u) => userIds?.includes(u.id) || usernames?.some((n) => n.toLowerCase() === u.username.toLowerCase()));
    rule.user_ids = wanted.filter((u) => projectRole(req.db, u, project) > 0).map((u) => u.id);
  }
  const groupIds = array(input.group_ids)?.map(Number);
  if (groupIds !== undefined) rule.group_ids = groups(req.db).filter((g) => groupIds.includes(g.id) && groupRole(req.db, req.user, g) > 0).map((g) => g.id);
  const branchIds = array(input.protected_branch_ids)?.map(Number);
  if (branchIds !== undefined) rule.protected_branch_ids = protectedBranches(req.db).filter((b) => b.project_id === project.id && branchIds.includes(b.id)).map((b) => b.id);

  const problems: Record<string, string[]> = {};
  if (!rule.name.trim()) problems.name = ["can't be blank"];
  else if (rule.name.length > 1024) problems.name = ['is too long (maximum is 1024 characters)'];
  else if (approvalRules(req.db).some((r) => r.project_id === project.id && r.id !== rule.id && r.name === rule.name)) problems.name = ['has already been taken'];
  if (rule.approvals_required < 0) problems.approvals_required = ['must be greater than or equal to 0'];
  if (rule.rule_type === 'report_approver' && !rule.report_type) problems.report_type = ["can't be blank"];
  if (rule.rule_type === 'any_approver' && approvalRules(req.db).some((r) => r.project_id === project.id && r.id !== rule.id && r.rule_type === 'any_approver')) {
    problems.rule_type = ['any-approver for the project already exists'];
  }
  if (Object.keys(problems).length) throw errors.validation(problems);
}

function findRule(req: SandboxRequest, project: Project): ApprovalRule {
  const rule = approvalRules(req.db).find((r) => r.project_id === project.id && String(r.id) === req.params.approval_rule_id);
  if (!rule) throw errors.notFound();
  return rule;
}

/** Approval rules are a Premium feature: 403 on the free tier. */
function rulesProject(req: SandboxRequest, minRole: number): Project {
  const project = projectFor(req, minRole);
  requireTier(req, 'premium');
  return project;
}

export const approvals: SandboxModule = {
  onPush(event, { db, tier }) {
    if (event.branch) followSourceBranch(db, { projectId: event.project.id, branch: event.branch, sha: event.after, now: event.at, tier });
  },
  routes(api) {
    const mr = mergeRequestApprovals.routes;
    const rules = declaredRules.parents.project.routes;

    api.route(mr.get, (req) => {
      const project = projectFor(req);
      return ok(presentApprovals(req, project, findMergeRequest(req, project)));
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
      return created(presentApprovals(req, project, request));
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
      return created(presentApprovals(req, project, request));
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

    api.route(declaredSettings.routes.get, (req) => ok(presentSettings(approvalSettings(req.db, projectFor(req).id))));

    api.route(declaredSettings.routes.update, (req) => {
      const project = rulesProject(req, Role.maintainer);
      const input = req.input;
      const names = ['approvals_before_merge', ...BOOLEAN_SETTINGS, 'require_reauthentication_to_approve'];
      if (names.every((name) => input[name] === undefined)) throw errors.error(400, `${names.join(', ')} are missing, at least one parameter must be provided`);
      const settings = approvalSettings(req.db, project.id);
      const changes: Partial<ApprovalSettings> = {};
      for (const name of BOOLEAN_SETTINGS) {
        const value = bool(input[name]);
        if (value !== undefined) changes[name] = value;
      }
      const reauth = bool(input.require_reauthentication_to_approve);
      if (reauth !== undefined) changes.require_password_to_approve = reauth;
      const before = int(input.approvals_before_merge, 'approvals_before_merge');
      if (before !== undefined) changes.approvals_before_merge = before;
      const reset = changes.reset_approvals_on_push ?? settings.reset_approvals_on_push;
      if (changes.selective_code_owner_removals && reset) {
        throw errors.validation({ base: ['selective_code_owner_removals can only be enabled when reset_approvals_on_push is disabled'] });
      }
      if (changes.approvals_before_merge !== undefined && changes.approvals_before_merge < 0) throw errors.validation({ approvals_before_merge: ['must be greater than or equal to 0'] });
      Object.assign(settings, changes);
      return created(presentSettings(settings));
    });

    api.route(rules.list, (req) => {
      const project = rulesProject(req, Role.guest);
      return paginate(req, approvalRules(req.db).filter((r) => r.project_id === project.id), { present: (r) => presentRule(req, r) });
    });

    api.route(rules.get, (req) => {
      const project = rulesProject(req, Role.guest);
      return ok(presentRule(req, findRule(req, project)));
    });

    api.route(rules.create, (req) => {
      const project = rulesProject(req, Role.maintainer);
      const rule: ApprovalRule = {
        id: 0, project_id: project.id, name: '', rule_type: 'regular', report_type: null, approvals_required: 0,
        user_ids: [], group_ids: [], protected_branch_ids: [], applies_to_all_protected_branches: false,
      };
      if (req.input.name === undefined || req.input.name === null) throw errors.missing('name');
      if (req.input.approvals_required === undefined || req.input.approvals_required === null || req.input.approvals_required === '') throw errors.missing('approvals_required');
      applyRuleParams(req, project, rule);
      rule.id = req.db.nextId('approval_rules');
      approvalRules(req.db).push(rule);
      return created(presentRule(req, rule));
    });

    api.route(rules.update, (req) => {
      const project = rulesProject(req, Role.maintainer);
      const rule = findRule(req, project);
      const draft = structuredClone(rule);
      applyRuleParams(req, project, draft);
      Object.assign(rule, draft);
      return ok(presentRule(req, rule));
    });

    api.route(rules.delete, (req) => {
      const project = rulesProject(req, Role.maintainer);
      const rule = findRule(req, project);
      approvalRules(req.db).splice(approvalRules(req.db).indexOf(rule), 1);
      return noContent();
    });
  },

  // Its rule names the default branch's protection, seeded by protected branches.
  seedAfter: ['protected-branches'],
  seed(db) {
    const project = findProject(db, 'acme/api');
    const alice = users(db).find((u) => u.username === 'alice');
    const main = protectedBranches(db).find((b) => b.project_id === project.id && b.name === project.default_branch);
    approvalRules(db).push({
      id: db.nextId('approval_rules'), project_id: project.id, name: 'Maintainers', rule_type: 'regular', report_type: null, approvals_required: 1,
      user_ids: alice ? [alice.id] : [], group_ids: [], protected_branch_ids: main ? [main.id] : [], applies_to_all_protected_branches: false,
    });
  },
};
