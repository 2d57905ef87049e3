import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { periodPath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl freeze-periods delete 1 --project acme/api --yes'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('freeze period id', 1)(opts.id);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete freeze period ${id} of project ${project}?`);
    await ctx.api.delete(periodPath(project, id));
    ctx.io.note(`Deleted freeze period ${id} of project ${project}`);
    return undefined;
  },
});
