import { routeOf } from '../../api/resource.js';
import { protectedBranches } from '../../api/resources/protected-branches.js';
import { defineCommand } from '../../cli/command.js';
import { parseId, placementFor, placementOptions } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; group?: string; name: string }>({
  description: 'Removes the rule (the branches stay). Asks first; --yes off a terminal. Needs the Maintainer role, or a place in the rule\'s unprotect list when it has one.',
  examples: ["forgectl protected-branches unprotect 'release/*' --project acme/api --yes"],
  args: ['<name>'],
  options: placementOptions(protectedBranches),
  async run(opts, ctx) {
    const { resource, params, where } = placementFor(protectedBranches, opts, ctx);
    const target = { ...params, name: parseId(resource, opts.name) };
    await ctx.confirm(`Unprotect branches "${opts.name}" of ${where}?`);
    await ctx.api.call(routeOf(resource, 'delete'), target);
    ctx.io.note(`Unprotected branches "${opts.name}" of ${where}`);
    return undefined;
  },
});
