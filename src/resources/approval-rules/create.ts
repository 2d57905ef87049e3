import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { routeOf } from '../../api/resource.js';
import { ruleBody, ruleOptions, rulePlacement, warnLeftOut, type RuleOptions } from './shared.js';

export default defineCommand<RuleOptions>({
  effect: 'write',
  description: 'Needs Premium and the Maintainer role (a merge request\'s rules: the Developer role, unless the project forbids overriding them). Unknown users are refused before anything is created; users who are not members of the project are left out by the service (with a warning).',
  examples: [
    'forgectl approval-rules create --project acme/api --name Security --approvals-required 1 --users alice,bob --protected-branches 1',
    'forgectl approval-rules create --project acme/api --name Coverage --approvals-required 1 --rule-type report_approver --report-type code_coverage --groups acme',
    'forgectl approval-rules create --project acme/api --mr 1 --name Release --approvals-required 2 --users alice,bob',
  ],
  options: [projectOption, ...ruleOptions(true)],
  async run(opts, ctx) {
    const body = await ruleBody(opts, ctx);
    const { resource, params } = rulePlacement(opts, ctx);
    const rule = await ctx.api.call<{ users?: Array<{ id: number; username: string }> }>(routeOf(resource, 'create'), { ...params, ...body });
    warnLeftOut(ctx, opts.users, rule);
    return rule;
  },
});
