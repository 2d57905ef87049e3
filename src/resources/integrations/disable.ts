import { defineCommand } from '../../cli/command.js';
import { groupOption } from '../../cli/options.js';
import { groupIntegrations, integrationArg, parseSlug } from './shared.js';

export default defineCommand<{ group?: string; slug: string }>({
  effect: 'destructive',
  description: 'Disables the integration and resets its settings.',
  examples: ['forgectl integrations disable bugzilla --group acme --yes'],
  args: [integrationArg],
  options: [groupOption],
  async run(opts, ctx) {
    const slug = parseSlug(opts.slug);
    const group = ctx.group(opts.group);
    await ctx.confirm(`Disable integration ${slug} of group ${group} and reset its settings?`);
    await ctx.api.call(groupIntegrations.disable, { group, slug });
    ctx.io.note(`Disabled integration ${slug} of group ${group}`);
    return undefined;
  },
});
