import { redactRecord } from '../../http/redact.js';
import { defineCommand } from '../../cli/command.js';
import { groupOption } from '../../cli/options.js';
import { groupIntegrations } from './shared.js';

export default defineCommand<{ group?: string }>({
  effect: 'read',
  description: 'The active integrations of a group. Needs a token with at least the Maintainer role.',
  examples: ['forgectl integrations list --group acme'],
  options: [groupOption],
  columns: ['slug', 'title', 'active', 'inherited', 'updated_at'],
  async run(opts, ctx) {
    return redactRecord(await ctx.api.call(groupIntegrations.list, { group: ctx.group(opts.group) }));
  },
});
