import { defineCommand } from '../../../cli/command.js';
import { projectOption } from '../../../cli/options.js';
import { approvalSettingsPath } from '../../../api/review.js';

export default defineCommand<{ project?: string }>({
  examples: ['forgectl approvals config get --project acme/api'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(approvalSettingsPath(ctx.project(opts.project)));
  },
});
