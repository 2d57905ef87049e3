import { projects } from '../../api/resources/projects.js';
import { defineCommand } from '../../cli/command.js';

export default defineCommand<{ project?: string }>({
  description: 'Archives a project: read-only, hidden from lists that leave archived projects out, kept in full. Needs the Maintainer role.',
  examples: ['forgectl projects archive acme/web'],
  args: ['[project]'],
  async run(opts, ctx) {
    const project = ctx.project(opts.project, 'the project as an argument (forgectl projects archive ID|PATH)');
    const result = await ctx.api.call<{ path_with_namespace: string }>(projects.routes.archive, { project });
    ctx.io.note(`Archived project ${result.path_with_namespace}`);
    return result;
  },
});
