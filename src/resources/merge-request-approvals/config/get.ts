import { defineCommand } from '../../../cli/command.js';
import { projectOption } from '../../../cli/options.js';
import { approvalSettings } from '../../approval-settings/resource.js';

export default defineCommand<{ project?: string }>({
  effect: 'read',
  examples: ['forgectl approvals config get --project acme/api'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.call(approvalSettings.routes.get, { project: ctx.project(opts.project) });
  },
});
