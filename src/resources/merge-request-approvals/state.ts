import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { mrOption } from '../merge-requests/review-options.js';
import { approvalsOf, routes } from './shared.js';

interface User {
  username: string;
}

interface RuleState {
  id: number;
  name: string;
  rule_type: string;
  approvals_required: number;
  approved_by?: User[];
  eligible_approvers?: User[];
  approved?: boolean;
  overridden?: boolean;
}

/** GET …/approval_state: whether the merge request's rules override the project's, and each rule's state. */
interface ApprovalRuleState {
  approval_rules_overwritten?: boolean;
  rules?: RuleState[];
}

const names = (list: User[] | undefined): string => (list ?? []).map((user) => user.username).join(', ');

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'read',
  description:
    'One row per approval rule of the merge request: approvals it needs, who approved (whose approval counts for it), whether it is ' +
    'satisfied, and whether the merge request changed it from the project rule it was copied from. Needs Premium.',
  examples: ['forgectl approvals state --project acme/api --mr 1', 'forgectl approvals state --project acme/api --mr 1 -o json --fields name,approved,approved_by'],
  options: [projectOption, mrOption],
  columns: ['name', 'rule_type', 'approvals_required', 'approved_by_names', 'approved', 'overridden'],
  recordFields: ['id', 'name', 'rule_type', 'approvals_required', 'approved_by', 'approved_by_names', 'eligible_approvers', 'eligible_approver_names', 'approved', 'overridden', 'users', 'groups', 'source_rule', 'contains_hidden_groups', 'section'],
  async run(opts, ctx) {
    const state = await ctx.api.call<ApprovalRuleState>(routes.state, approvalsOf(ctx.project(opts.project), opts.mr));
    if (state.approval_rules_overwritten) ctx.io.note(`merge request !${opts.mr} has its own approval rules (the project's were overridden)`);
    const rules = state.rules ?? [];
    if (!rules.length) ctx.io.note(`merge request !${opts.mr} has no approval rules`);
    return rules.map((rule) => ({ ...rule, approved_by_names: names(rule.approved_by), eligible_approver_names: names(rule.eligible_approvers) }));
  },
});
