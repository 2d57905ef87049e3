import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseId } from '../../cli/resource-commands.js';
import { routeOf } from '../../api/resource.js';
import { ruleBody, ruleOptions, rulePlacement, warnLeftOut, type RuleOptions } from './shared.js';

export default defineCommand<RuleOptions & { id: string }>({
  effect: 'write',
  description: 'Changes only what is given; --users and --groups replace their lists. The service documents name and approvals_required as required here, so the current values are sent when not given.',
  examples: ['forgectl approval-rules update 1 --project acme/api --approvals-required 2 --users alice', 'forgectl approval-rules update 1 --project acme/api --mr 1 --approvals-required 1'],
  args: [{ spec: '<id>', description: 'the approval rule\'s ID' }],
  options: [projectOption, ...ruleOptions(false)],
  async run(opts, ctx) {
    const { resource, params } = rulePlacement(opts, ctx);
    const id = parseId(resource, opts.id);
    const body = await ruleBody(opts, ctx);
    const changes = Object.entries(body).filter(([, value]) => value !== undefined);
    if (!changes.length) throw new UsageError('nothing to change', 'give --name, --approvals-required, --users, --groups or another rule option');
    const target = { ...params, approval_rule_id: id };
    if (body.name === undefined || body.approvals_required === undefined) {
      const current = await ctx.api.call<{ name: string; approvals_required: number }>(routeOf(resource, 'get'), target);
      body.name ??= current.name;
      body.approvals_required ??= current.approvals_required;
    }
    const rule = await ctx.api.call<{ users?: Array<{ id: number; username: string }> }>(routeOf(resource, 'update'), { ...body, ...target });
    warnLeftOut(ctx, opts.users, rule);
    return rule;
  },
});
