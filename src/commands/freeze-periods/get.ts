import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { periodPath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl freeze-periods get 1 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(periodPath(ctx.project(opts.project), parseInteger('freeze period id', 1)(opts.id)));
  },
});
