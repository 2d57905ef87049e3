import { groupRole, projectFor, projectRole, requireTier, Role } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { array, created, errors, int, noContent, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import {
  approvalRules, groups, mergeRequestRules, overriddenRules, protectedBranches, users,
  type ApprovalRule, type MergeRequest, type MergeRequestRule, type Project,
} from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { approvalRules as declaredRules } from './resource.js';
import { mergeRequestApprovals } from '../merge-request-approvals/resource.js';
import { paginate } from '../../sandbox/pagination.js';
import { presentGroup, presentUserBasic } from '../../sandbox/present.js';
import { approvalSettings, eligibleApprovers, findMergeRequest, refreshApprovalStatus } from '../../sandbox/review.js';

/**
 * Approval rules of one merge request (Premium) and its approval state. A merge request starts with copies of the
 * project's rules that apply to its target branch; changing them (create, update, delete) overrides those copies,
 * unless the project forbids overriding approvers per merge request.
 */

/** The project rules that apply to a merge request: those on all protected branches, on its target branch, or on none. */
function projectRulesFor(db: Db, mr: MergeRequest): ApprovalRule[] {
  const target = protectedBranches(db).find((b) => b.project_id === mr.project_id && b.name === mr.target_branch);
  return approvalRules(db).filter((r) => r.project_id === mr.project_id && r.rule_type !== 'report_approver'
    && (r.applies_to_all_protected_branches ? Boolean(target) : r.protected_branch_ids.length === 0 || (target !== undefined && r.protected_branch_ids.includes(target.id))));
}

/** The merge request's rules, copied from the project's the first time they are needed. */
function rulesOf(db: Db, mr: MergeRequest): MergeRequestRule[] {
  const own = mergeRequestRules(db).filter((r) => r.merge_request_id === mr.id);
  if (own.length || overriddenRules(db).some((o) => o.merge_request_id === mr.id)) return own;
  const copies = projectRulesFor(db, mr).map((rule): MergeRequestRule => ({
    id: db.nextId('merge_request_approval_rules'), merge_request_id: mr.id, name: rule.name, rule_type: rule.rule_type,
    approvals_required: rule.approvals_required, user_ids: [...rule.user_ids], group_ids: [...rule.group_ids], source_rule_id: rule.id,
  }));
  mergeRequestRules(db).push(...copies);
  return copies;
}

function eligible(db: Db, rule: MergeRequestRule) {
  return eligibleApprovers(db, { user_ids: rule.user_ids, group_ids: rule.group_ids });
}

function presentMrRule(req: SandboxRequest, mr: MergeRequest, rule: MergeRequestRule): Record<string, unknown> {
  const source = rule.source_rule_id === null ? undefined : approvalRules(req.db).find((r) => r.id === rule.source_rule_id);
  return {
    id: rule.id,
    name: rule.name,
    rule_type: rule.rule_type,
    eligible_approvers: eligible(req.db, rule).map((u) => presentUserBasic(u, req.rootUrl)),
    approvals_required: rule.approvals_required,
    source_rule: source ? { approvals_required: source.approvals_required } : null,
    users: users(req.db).filter((u) => rule.user_ids.includes(u.id)).map((u) => presentUserBasic(u, req.rootUrl)),
    groups: groups(req.db).filter((g) => rule.group_ids.includes(g.id)).map((g) => presentGroup(g, req.db, req.rootUrl)),
    contains_hidden_groups: false,
    section: null,
    overridden: source !== undefined && (source.approvals_required !== rule.approvals_required || source.name !== rule.name),
  };
}

/** A rule is approved when enough of its eligible approvers approved (anyone counts for any_approver rules). */
function ruleState(req: SandboxRequest, mr: MergeRequest, rule: MergeRequestRule): Record<string, unknown> {
  const pool = new Set(eligible(req.db, rule).map((u) => u.id));
  const approvedBy = mr.approved_by.filter((id) => rule.rule_type === 'any_approver' || pool.has(id));
  return {
    ...presentMrRule(req, mr, rule),
    approved_by: users(req.db).filter((u) => approvedBy.includes(u.id)).map((u) => presentUserBasic(u, req.rootUrl)),
    approved: approvedBy.length >= rule.approvals_required,
  };
}

/** After the rules changed: the merge request needs what its rules add up to. */
function rulesChanged(req: SandboxRequest, mr: MergeRequest): void {
  if (!overriddenRules(req.db).some((o) => o.merge_request_id === mr.id)) overriddenRules(req.db).push({ merge_request_id: mr.id });
  mr.approvals_required = rulesOf(req.db, mr).reduce((sum, rule) => sum + rule.approvals_required, 0);
  mr.updated_at = req.now().toISOString();
  refreshApprovalStatus(mr, req.tier);
}

/** Project, merge request and the right to change its rules (Developer, unless the project forbids overriding). */
function editable(req: SandboxRequest): { project: Project; mr: MergeRequest } {
  const project = projectFor(req);
  requireTier(req, 'premium');
  const mr = findMergeRequest(req, project);
  if (projectRole(req.db, req.user, project) < Role.developer || approvalSettings(req.db, project.id).disable_overriding_approvers_per_merge_request) throw errors.forbidden();
  if (mr.state === 'merged') throw errors.forbidden();
  return { project, mr };
}

/** user_ids, usernames and group_ids of a request; users need access to the project, groups must be visible. */
function applyParams(req: SandboxRequest, project: Project, rule: MergeRequestRule): void {
  if (req.input.name !== undefined) rule.name = String(req.input.name);
  const approvals = int(req.input.approvals_required, 'approvals_required');
  if (approvals !== undefined) {
    if (approvals < 0) throw errors.validation({ approvals_required: ['must be greater than or equal to 0'] });
    rule.approvals_required = approvals;
  }
  const userIds = array(req.input.user_ids)?.map(Number);
  const usernames = array(req.input.usernames);
  if (userIds !== undefined || usernames !== undefined) {
    rule.user_ids = users(req.db)
      .filter((u) => userIds?.includes(u.id) || usernames?.some((n) => n.toLowerCase() === u.username.toLowerCase()))
      .filter((u) => projectRole(req.db, u, project) > 0)
      .map((u) => u.id);
  }
  const groupIds = array(req.input.group_ids)?.map(Number);
  if (groupIds !== undefined) rule.group_ids = groups(req.db).filter((g) => groupIds.includes(g.id) && groupRole(req.db, req.user, g) > 0).map((g) => g.id);
  if (!rule.name.trim()) throw errors.validation({ name: ["can't be blank"] });
}

function findRule(req: SandboxRequest, mr: MergeRequest): MergeRequestRule {
  const rule = rulesOf(req.db, mr).find((r) => String(r.id) === req.params.approval_rule_id);
  if (!rule) throw errors.notFound();
  return rule;
}

export const mergeRequestApprovalRules: SandboxModule = {
  routes(api) {
    const rules = declaredRules.parents.mr.routes;

    api.route(mergeRequestApprovals.routes.state, (req) => {
      const project = projectFor(req);
      requireTier(req, 'premium');
      const mr = findMergeRequest(req, project);
      return ok({
        approval_rules_overwritten: overriddenRules(req.db).some((o) => o.merge_request_id === mr.id),
        rules: rulesOf(req.db, mr).map((rule) => ruleState(req, mr, rule)),
      });
    });

    api.route(rules.list, (req) => {
      const project = projectFor(req);
      requireTier(req, 'premium');
      const mr = findMergeRequest(req, project);
      return paginate(req, rulesOf(req.db, mr), { present: (rule) => presentMrRule(req, mr, rule) });
    });

    api.route(rules.get, (req) => {
      const project = projectFor(req);
      requireTier(req, 'premium');
      const mr = findMergeRequest(req, project);
      return ok(presentMrRule(req, mr, findRule(req, mr)));
    });

    api.route(rules.create, (req) => {
      const { project, mr } = editable(req);
      const name = String(required(req, 'name'));
      required(req, 'approvals_required');
      rulesOf(req.db, mr);
      const sourceId = int(req.input.approval_project_rule_id, 'approval_project_rule_id');
      const source = sourceId === undefined ? undefined : approvalRules(req.db).find((r) => r.id === sourceId && r.project_id === project.id);
      if (sourceId !== undefined && !source) throw errors.notFound();
      const rule: MergeRequestRule = {
        id: 0, merge_request_id: mr.id, name, rule_type: 'regular', approvals_required: 0,
        user_ids: source ? [...source.user_ids] : [], group_ids: source ? [...source.group_ids] : [], source_rule_id: source?.id ?? null,
      };
      applyParams(req, project, rule);
      if (mergeRequestRules(req.db).some((r) => r.merge_request_id === mr.id && r.name === rule.name)) throw errors.validation({ name: ['has already been taken'] });
      rule.id = req.db.nextId('merge_request_approval_rules');
      mergeRequestRules(req.db).push(rule);
      rulesChanged(req, mr);
      return created(presentMrRule(req, mr, rule));
    });

    api.route(rules.update, (req) => {
      const { project, mr } = editable(req);
      const rule = findRule(req, mr);
      const draft = structuredClone(rule);
      applyParams(req, project, draft);
      Object.assign(rule, draft);
      rulesChanged(req, mr);
      return ok(presentMrRule(req, mr, rule));
    });

    api.route(rules.delete, (req) => {
      const { mr } = editable(req);
      const rule = findRule(req, mr);
      mergeRequestRules(req.db).splice(mergeRequestRules(req.db).indexOf(rule), 1);
      rulesChanged(req, mr);
      return noContent();
    });
  },
};

