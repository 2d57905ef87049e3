import { protectedTags } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseId } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; name: string }>({
  effect: 'destructive',
  description: 'Needs the Maintainer role.',
  examples: ["forgectl protected-tags unprotect 'release-*' --project acme/api --yes"],
  args: [{ spec: '<name>', description: 'the protected tag name or wildcard (v*)' }],
  options: [projectOption],
  async run(opts, ctx) {
    const name = parseId(protectedTags, opts.name);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Unprotect tags "${opts.name}" of project ${project}?`);
    await ctx.api.call(protectedTags.routes.delete, { project, name });
    ctx.io.note(`Unprotected tags "${opts.name}" of project ${project}`);
    return undefined;
  },
});
