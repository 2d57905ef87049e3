import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** The longest rule name the service accepts. */
export const MAX_RULE_NAME_CHARS = 1024;

/**
 * Approval rules (Premium) of a project, or of one merge request (--mr: the merge request starts with copies of the
 * project rules that apply to its target branch; changing them overrides those copies). Create and update are
 * hand-written commands (eligible approvers are written as user_ids/usernames/group_ids and read back as
 * users/groups); their routes are these.
 */
export const approvalRules = defineResource({
  noun: 'approval rule',
  command: 'approval-rules',
  id: { param: 'approval_rule_id', field: 'id' },
  parents: {
    project: {
      parent: 'project',
      routes: {
        list: 'GET /projects/{project}/approval_rules',
        get: 'GET /projects/{project}/approval_rules/{approval_rule_id}',
        create: 'POST /projects/{project}/approval_rules',
        update: 'PUT /projects/{project}/approval_rules/{approval_rule_id}',
        delete: 'DELETE /projects/{project}/approval_rules/{approval_rule_id}',
      },
      // The fields of a merge request's copy of a rule.
      without: ['source_rule', 'section', 'overridden'],
    },
    mr: {
      parent: 'project',
      scope: { merge_request_iid: f.int({ min: 1, flag: 'mr', placeholder: '<iid>', help: "the rules of this merge request (its IID) instead of the project's" }) },
      where: ({ project, merge_request_iid }) => `merge request !${String(merge_request_iid)} in ${String(project)}`,
      routes: {
        list: 'GET /projects/{project}/merge_requests/{merge_request_iid}/approval_rules',
        get: 'GET /projects/{project}/merge_requests/{merge_request_iid}/approval_rules/{approval_rule_id}',
        create: 'POST /projects/{project}/merge_requests/{merge_request_iid}/approval_rules',
        update: 'PUT /projects/{project}/merge_requests/{merge_request_iid}/approval_rules/{approval_rule_id}',
        delete: 'DELETE /projects/{project}/merge_requests/{merge_request_iid}/approval_rules/{approval_rule_id}',
      },
      // A merge request's rule has no report type and no branches of its own.
      without: ['report_type', 'protected_branches', 'applies_to_all_protected_branches'],
      // Developers change the rules of a merge request (unless the project forbids overriding them).
      roles: { read: 'guest', write: 'developer' },
    },
  },
  default: 'project',
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    // The service takes "" (and answers that it can't be blank).
    name: f.string({ create: 'required', blank: true, help: `rule name, unique in the project (at most ${MAX_RULE_NAME_CHARS} characters)` }),
    rule_type: f.enum(['regular', 'any_approver', 'report_approver'], { default: 'regular' }),
    report_type: f.enum(['code_coverage', 'license_scanning'], { nullable: true }),
    eligible_approvers: f.object(),
    approvals_required: f.int({ min: 0, create: 'required', help: 'approvals this rule needs' }),
    /** A merge request's rule: the project rule it was copied from ({approvals_required}), or null. */
    source_rule: f.object({ nullable: true }),
    users: f.object(),
    groups: f.object(),
    contains_hidden_groups: f.bool({ readOnly: true }),
    /** A merge request's rule: its CODEOWNERS section (null), and whether it differs from its project rule. */
    section: f.string({ readOnly: true, nullable: true }),
    overridden: f.bool({ readOnly: true }),
    protected_branches: f.object(),
    applies_to_all_protected_branches: f.bool(),
  },
  columns: ['id', 'name', 'rule_type', 'report_type', 'approvals_required', 'applies_to_all_protected_branches'],
  identity: ['name'],
  roles: { read: 'guest', write: 'maintainer' },
  tier: 'premium',
});
