import { redactRecord } from '../../http/redact.js';
import { defineCommand } from '../../cli/command.js';
import { groupOption } from '../../cli/options.js';
import { groupIntegrations, integrationArg, parseSlug } from './shared.js';

export default defineCommand<{ group?: string; slug: string }>({
  effect: 'read',
  description: 'Settings of one integration; secret fields (tokens, passwords) are never returned by the service.',
  examples: ['forgectl integrations get bugzilla --group acme', 'forgectl integrations get bugzilla --group acme --fields properties.project_url'],
  args: [integrationArg],
  options: [groupOption],
  async run(opts, ctx) {
    return redactRecord(await ctx.api.call(groupIntegrations.get, { group: ctx.group(opts.group), slug: parseSlug(opts.slug) }));
  },
});
