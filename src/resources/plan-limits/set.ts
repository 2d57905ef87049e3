import { defineCommand, instanceName } from '../../cli/command.js';
import { changesFrom, checkApplied, previewAndConfirm } from '../../cli/change.js';
import { planLimits } from './resource.js';
import { parseLimitPairs, planOption } from './shared.js';

export default defineCommand<{ pairs: string[]; plan: string }>({
  effect: 'write',
  description: 'Every limit is a whole number (0 usually means no limit). The change is shown as current → new and confirmed (--yes without a terminal).',
  examples: ['forgectl plan-limits set ci_pipeline_size=500 ci_active_jobs=200', 'forgectl plan-limits set npm_max_file_size=1073741824 --plan premium --yes'],
  args: [{ spec: '<pairs...>', description: 'LIMIT=N pairs: the limits to change and their new values' }],
  options: [planOption],
  async run(opts, ctx) {
    const wanted = parseLimitPairs(opts.pairs);
    const current = await ctx.api.call<Record<string, unknown>>(planLimits.routes.get, { plan_name: opts.plan });
    const changes = changesFrom(current, wanted);
    if (!changes.length) {
      ctx.io.note(`nothing to change: plan ${opts.plan} already has these limits`);
      return current;
    }
    const subject = `the limits of plan ${opts.plan} on ${instanceName(ctx)}`;
    await previewAndConfirm(ctx, subject, changes);
    const result = await ctx.api.call<Record<string, unknown>>(planLimits.routes.update, { plan_name: opts.plan, ...wanted });
    checkApplied(ctx, changes, result);
    ctx.io.note(`Updated ${subject}`);
    return result;
  },
});
