import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { filePath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl secure-files get 1 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(filePath(ctx.project(opts.project), parseInteger('secure file id', 1)(opts.id)));
  },
});
