import { defineCommand } from '../../cli/command.js';
import { planLimits } from './resource.js';
import { planOption } from './shared.js';

export default defineCommand<{ plan: string }>({
  effect: 'read',
  description: 'File sizes and dotenv_size are in bytes; enforcement_limit, notification_limit and storage_size_limit in MiB.',
  examples: ['forgectl plan-limits get', 'forgectl plan-limits get --plan premium -o json'],
  options: [planOption],
  async run(opts, ctx) {
    return ctx.api.call(planLimits.routes.get, { plan_name: opts.plan });
  },
});
