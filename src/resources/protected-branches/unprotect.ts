import { routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { withWho } from './shared.js';
import { defineCommand } from '../../cli/command.js';
import { parseId, placementFor, placementOptions, recordOf } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; group?: string; name: string }>({
  effect: 'destructive',
  description: 'Removes the rule (the branches stay), after finding it and asking (--yes off a terminal); with --projects-file in every project the file names, one question for them all. Needs the Maintainer role, or a place in the rule\'s unprotect list when it has one.',
  examples: ["forgectl protected-branches unprotect 'release/*' --project acme/api --yes", "forgectl protected-branches unprotect 'legacy/*' --projects-file services.txt --yes"],
  fleet: 'projects-file',
  args: [{ spec: '<name>', description: 'the protected branch name or wildcard (release/*)' }],
  options: placementOptions(protectedBranches),
  record: recordOf(protectedBranches),
  async run(opts, ctx) {
    const { resource, params, where } = placementFor(protectedBranches, opts, ctx);
    const target = { ...params, name: parseId(resource, opts.name) };
    // Found first: a project without the rule fails before the question, and the question says who may push now.
    const [rule] = await withWho([await ctx.api.call<ProtectedBranch>(routeOf(resource, 'get'), target)], ctx);
    await ctx.confirm(`Unprotect branches "${opts.name}" of ${where} (push: ${rule.push}; merge: ${rule.merge})?`);
    await ctx.api.call(routeOf(resource, 'delete'), target);
    ctx.io.note(`Unprotected branches "${opts.name}" of ${where}`);
    return undefined;
  },
});
