import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { approvalRules } from '../../api/resources/approval-rules.js';
import { ruleBody, ruleOptions, warnLeftOut, type RuleOptions } from './shared.js';

export default defineCommand<RuleOptions>({
  description: 'Needs Premium and the Maintainer role. Unknown users are refused before anything is created; users who are not members of the project are left out by the service (with a warning).',
  examples: [
    'forgectl approval-rules create --project acme/api --name Security --approvals-required 1 --users alice,bob --protected-branches 1',
    'forgectl approval-rules create --project acme/api --name Coverage --approvals-required 1 --rule-type report_approver --report-type code_coverage --groups acme',
  ],
  options: [projectOption, ...ruleOptions(true)],
  async run(opts, ctx) {
    const body = await ruleBody(opts, ctx);
    const rule = await ctx.api.call<{ users?: Array<{ id: number; username: string }> }>(approvalRules.routes.create, { project: ctx.project(opts.project), ...body });
    warnLeftOut(ctx, opts.users, rule);
    return rule;
  },
});
