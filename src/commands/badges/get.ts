import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { badgePath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl badges get 3 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(badgePath(ctx.project(opts.project), parseInteger('badge id', 1)(opts.id)));
  },
});
