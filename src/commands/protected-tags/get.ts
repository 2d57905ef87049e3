import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { tagPath } from './shared.js';

export default defineCommand<{ project?: string; name: string }>({
  examples: ["forgectl protected-tags get 'v*' --project acme/api"],
  args: ['<name>'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(tagPath(ctx.project(opts.project), opts.name));
  },
});
