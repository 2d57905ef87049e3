import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { tagPath } from './shared.js';

export default defineCommand<{ project?: string; name: string }>({
  examples: ["forgectl protected-tags unprotect 'v*' --project acme/api --yes"],
  args: ['<name>'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.confirm(`Unprotect tags "${opts.name}" of project ${project}?`);
    await ctx.api.delete(tagPath(project, opts.name));
    ctx.io.note(`Unprotected tags "${opts.name}" of project ${project}`);
    return undefined;
  },
});
