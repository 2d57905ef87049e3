import { projects } from '../../api/resources/projects.js';
import { defineCommand } from '../../cli/command.js';

export default defineCommand<{ project?: string }>({
  description: 'Makes an archived project writable again. Needs the Maintainer role.',
  examples: ['forgectl projects unarchive acme/web'],
  args: ['[project]'],
  async run(opts, ctx) {
    const project = ctx.project(opts.project, 'the project as an argument (forgectl projects unarchive ID|PATH)');
    const result = await ctx.api.call<{ path_with_namespace: string }>(projects.routes.unarchive, { project });
    ctx.io.note(`Unarchived project ${result.path_with_namespace}`);
    return result;
  },
});
