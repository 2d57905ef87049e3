import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { approvalRulesPath } from '../../api/review.js';
import { ruleColumns } from './shared.js';

export default defineCommand<{ project?: string }>({
  description: 'Needs Premium.',
  examples: ['forgectl approval-rules list --project acme/api', "forgectl approval-rules list --project acme/api -o json --fields name,eligible_approvers"],
  options: [projectOption],
  list: true,
  columns: ruleColumns,
  async run(opts, ctx) {
    return ctx.api.list(approvalRulesPath(ctx.project(opts.project)), {}, ctx.paging);
  },
});
