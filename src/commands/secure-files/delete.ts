import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { filePath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl secure-files delete 1 --project acme/api --yes'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('secure file id', 1)(opts.id);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete secure file ${id} of project ${project}?`);
    await ctx.api.delete(filePath(project, id));
    ctx.io.note(`Deleted secure file ${id} of project ${project}`);
    return undefined;
  },
});
