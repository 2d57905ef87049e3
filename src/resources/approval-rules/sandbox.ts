import { findProject, groupRole, projectFor, projectRole, requireTier } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { array, errors, int, ok, required, type SandboxRequest } from '../../sandbox/http.js';
import {
  approvalRules, groups, mergeRequestRules, mergeRequests, overriddenRules, protectedBranches, users,
  type ApprovalRule, type MergeRequest, type MergeRequestRule, type Project,
} from '../../sandbox/model.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { approvalRules as declared, MAX_RULE_NAME_CHARS } from './resource.js';
import { mergeRequestApprovals } from '../merge-request-approvals/resource.js';
import { placed } from '../../api/resource.js';
import { crudModule, type Where } from '../../sandbox/crud.js';
import { presentGroup, presentUserBasic } from '../../sandbox/present.js';
import { presentProtectedBranch } from '../../sandbox/protection.js';
import { presentRecord, type Values } from '../../sandbox/records.js';
import { approvalSettings, eligibleApprovers, findMergeRequest, refreshApprovalStatus } from '../../sandbox/review.js';

/**
 * Approval rules (Premium, spec 1, api-facts §1.2) of a project, and of one merge request with its approval state.
 * A merge request starts with copies of the project's rules that apply to its target branch; changing them (create,
 * update, delete) overrides those copies, unless the project forbids overriding approvers per merge request. Both
 * are presented from the declaration, each placement going without the fields of the other.
 */

const atMergeRequest = placed(declared, 'mr');

/** The eligible approvers of a rule, and the users and groups it names, as a rule's answer has them. */
function approverFields(req: SandboxRequest, rule: Pick<ApprovalRule, 'user_ids' | 'group_ids'>): Values {
  return {
    eligible_approvers: eligibleApprovers(req.db, rule).map((u) => presentUserBasic(u, req.rootUrl)),
    users: users(req.db).filter((u) => rule.user_ids.includes(u.id)).map((u) => presentUserBasic(u, req.rootUrl)),
    groups: groups(req.db).filter((g) => rule.group_ids.includes(g.id)).map((g) => presentGroup(req, g)),
    contains_hidden_groups: false,
  };
}

/** What a project rule's answer has that it does not store: its approvers and protected branches. */
function ruleComputed(req: SandboxRequest, rule: ApprovalRule): Values {
  const branches = rule.applies_to_all_protected_branches
    ? protectedBranches(req.db).filter((b) => b.project_id === rule.project_id)
    : protectedBranches(req.db).filter((b) => rule.protected_branch_ids.includes(b.id));
  return { ...approverFields(req, rule), protected_branches: branches.map((branch) => presentProtectedBranch(req.db, branch)) };
}

/** What a merge request's rule's answer has that it does not store: approvers, the project rule it copies, whether it differs. */
function mrRuleComputed(req: SandboxRequest, rule: MergeRequestRule): Values {
  const source = rule.source_rule_id === null ? undefined : approvalRules(req.db).find((r) => r.id === rule.source_rule_id);
  return {
    ...approverFields(req, rule),
    source_rule: source ? { approvals_required: source.approvals_required } : null,
    section: null,
    overridden: source !== undefined && (source.approvals_required !== rule.approvals_required || source.name !== rule.name),
  };
}

const presentedMrRule = (req: SandboxRequest, rule: MergeRequestRule): Values => presentRecord(atMergeRequest, rule, mrRuleComputed(req, rule));


/** user_ids and usernames, group_ids of a request: users need access to the project, groups must be visible (others are dropped, as the service filters them). */
function applyApprovers(req: SandboxRequest, project: Project, rule: Pick<ApprovalRule, 'user_ids' | 'group_ids'>): void {
  const userIds = array(req.input.user_ids)?.map(Number);
  const usernames = array(req.input.usernames);
  if (userIds !== undefined || usernames !== undefined) {
    const wanted = users(req.db).filter((u) => userIds?.includes(u.id) || usernames?.some((n) => n.toLowerCase() === u.username.toLowerCase()));
    rule.user_ids = wanted.filter((u) => projectRole(req.db, u, project) > 0).map((u) => u.id);
  }
  const groupIds = array(req.input.group_ids)?.map(Number);
  if (groupIds !== undefined) rule.group_ids = groups(req.db).filter((g) => groupIds.includes(g.id) && groupRole(req.db, req.user, g) > 0).map((g) => g.id);
}

// ----- a project's rules -----

const RULE_TYPES = ['regular', 'any_approver', 'report_approver', 'code_owner'] as const;
const REPORT_TYPES = ['code_coverage', 'license_scanning'];

/** The model's checks of a project rule, as the service words them. */
function checkRule(db: Db, project: Project, rule: ApprovalRule): void {
  const problems: Record<string, string[]> = {};
  const others = approvalRules(db).filter((r) => r.project_id === project.id && r.id !== rule.id);
  if (!rule.name.trim()) problems.name = ["can't be blank"];
  else if (rule.name.length > MAX_RULE_NAME_CHARS) problems.name = [`is too long (maximum is ${MAX_RULE_NAME_CHARS} characters)`];
  else if (others.some((r) => r.name === rule.name)) problems.name = ['has already been taken'];
  if (rule.approvals_required < 0) problems.approvals_required = ['must be greater than or equal to 0'];
  if (rule.rule_type === 'report_approver' && !rule.report_type) problems.report_type = ["can't be blank"];
  if (rule.rule_type === 'any_approver' && others.some((r) => r.rule_type === 'any_approver')) problems.rule_type = ['any-approver for the project already exists'];
  if (Object.keys(problems).length) throw errors.validation(problems);
}

/**
 * The project's rules, from the declaration (Premium, as declared): what a request gives beyond the declared fields
 * (its approvers and protected branches, by id), the rule and report types it names, and the model's checks.
 */
const projectRules = crudModule<ApprovalRule>(declared, {
  // "404 Not found", as the service words a rule it cannot find.
  notFound: '',
  servedElsewhere: Object.values(atMergeRequest.routes),
  validate(rule, req, previous, { parent }) {
    const project = parent as Project;
    if (!previous) Object.assign(rule, { report_type: rule.report_type ?? null, user_ids: [], group_ids: [], protected_branch_ids: [], applies_to_all_protected_branches: rule.applies_to_all_protected_branches ?? false });
    if (req.input.rule_type !== undefined && !(RULE_TYPES as readonly string[]).includes(String(req.input.rule_type))) throw errors.invalid('rule_type');
    if (req.input.report_type !== undefined) {
      if (!REPORT_TYPES.includes(String(req.input.report_type))) throw errors.invalid('report_type');
      rule.rule_type = 'report_approver';
    }
    applyApprovers(req, project, rule);
    const branchIds = array(req.input.protected_branch_ids)?.map(Number);
    if (branchIds !== undefined) rule.protected_branch_ids = protectedBranches(req.db).filter((b) => b.project_id === project.id && branchIds.includes(b.id)).map((b) => b.id);
    checkRule(req.db, project, rule);
  },
  computed: (rule, req) => ruleComputed(req, rule),
  // Its rule names the default branch's protection, seeded by protected branches.
  seedAfter: ['protected-branches'],
  seed(db, _context, insert) {
    const project = findProject(db, 'acme/api');
    const alice = users(db).find((u) => u.username === 'alice');
    const main = protectedBranches(db).find((b) => b.project_id === project.id && b.name === project.default_branch);
    insert(project.id, {
      name: 'Maintainers', rule_type: 'regular', report_type: null, approvals_required: 1,
      user_ids: alice ? [alice.id] : [], group_ids: [], protected_branch_ids: main ? [main.id] : [], applies_to_all_protected_branches: false,
    }, 'project');
  },
});

// ----- a merge request's rules -----

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

/** A rule is approved when enough of its eligible approvers approved (anyone counts for any_approver rules). */
function ruleState(req: SandboxRequest, mr: MergeRequest, rule: MergeRequestRule): Values {
  const pool = new Set(eligibleApprovers(req.db, rule).map((u) => u.id));
  const approvedBy = mr.approved_by.filter((id) => rule.rule_type === 'any_approver' || pool.has(id));
  return {
    ...presentedMrRule(req, rule),
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

/** The merge request a route's scope found (Where.scope). */
const mergeRequestOf = (db: Db, { scope }: Where): MergeRequest => mergeRequests(db).find((m) => m.id === scope.merge_request_id)!;

/** The name, approvals and approvers of a request. */
function applyParams(req: SandboxRequest, project: Project, rule: MergeRequestRule): void {
  if (req.input.name !== undefined) rule.name = String(req.input.name);
  const approvals = int(req.input.approvals_required, 'approvals_required');
  if (approvals !== undefined) {
    if (approvals < 0) throw errors.validation({ approvals_required: ['must be greater than or equal to 0'] });
    rule.approvals_required = approvals;
  }
  applyApprovers(req, project, rule);
  if (!rule.name.trim()) throw errors.validation({ name: ["can't be blank"] });
}

/** A new rule of the merge request's own, or a copy of the project rule named by approval_project_rule_id. */
function newMrRule(req: SandboxRequest, project: Project, mr: MergeRequest): Omit<MergeRequestRule, 'id'> {
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
  const { id: _unset, ...values } = rule;
  return values;
}

/**
 * A merge request's rules, from the declaration's placement under it: found through the merge request (404 before
 * the Developer role to change them is checked), copied from the project's on first use, changed only while the
 * project lets merge requests override their approvers and the merge request is not merged, each change adding up
 * the approvals the merge request needs.
 */
const mrRules = crudModule<MergeRequestRule>(atMergeRequest, {
  table: 'merge_request_approval_rules',
  notFound: '',
  scope: (req, { parent }) => ({ merge_request_id: findMergeRequest(req, parent as Project).id }),
  writable(req, where) {
    if (approvalSettings(req.db, where.parent.id).disable_overriding_approvers_per_merge_request || mergeRequestOf(req.db, where).state === 'merged') throw errors.forbidden();
  },
  visible: (db, _parent, where) => rulesOf(db, mergeRequestOf(db, where)),
  input(req, where, previous) {
    const project = where.parent as Project;
    if (!previous) return newMrRule(req, project, mergeRequestOf(req.db, where));
    const draft = structuredClone(previous);
    applyParams(req, project, draft);
    return draft;
  },
  changed: (_rule, req, where) => rulesChanged(req, mergeRequestOf(req.db, where)),
  computed: (rule, req) => mrRuleComputed(req, rule),
  routes(api) {
    api.route(mergeRequestApprovals.routes.state, (req) => {
      const project = projectFor(req);
      requireTier(req, 'premium');
      const mr = findMergeRequest(req, project);
      return ok({ approval_rules_overwritten: overriddenRules(req.db).some((o) => o.merge_request_id === mr.id), rules: rulesOf(req.db, mr).map((rule) => ruleState(req, mr, rule)) });
    });
  },
});

export const approvalRulesModule: SandboxModule = {
  ...projectRules,
  routes(api, web) {
    projectRules.routes(api, web);
    mrRules.routes(api, web);
  },
};
