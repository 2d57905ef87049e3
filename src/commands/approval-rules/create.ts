import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { approvalRulesPath } from '../../api/review.js';
import { ruleBody, ruleOptions, type RuleOptions } from './shared.js';

export default defineCommand<RuleOptions>({
  description: 'Needs Premium and the Maintainer role. Users and groups the service does not know are left out of the rule.',
  examples: [
    'forgectl approval-rules create --project acme/api --name Security --approvals-required 1 --users alice,bob --protected-branches 1',
    'forgectl approval-rules create --project acme/api --name Coverage --approvals-required 1 --rule-type report_approver --report-type code_coverage --groups acme',
  ],
  options: [projectOption, ...ruleOptions(true)],
  async run(opts, ctx) {
    const body = await ruleBody(opts, ctx);
    return ctx.api.post(approvalRulesPath(ctx.project(opts.project)), body);
  },
});
