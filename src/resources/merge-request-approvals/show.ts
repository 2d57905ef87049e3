import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { mrOption } from '../merge-requests/review-options.js';
import { approvalsOf, routes } from './shared.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'read',
  description: 'approved_by lists everyone who approved, whether or not their approval counts for a rule.',
  examples: ['forgectl approvals show --project acme/api --mr 1', 'forgectl approvals show --project acme/api --mr 1 --fields approvals_left,approved_by -o json'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    return ctx.api.call(routes.get, approvalsOf(ctx.project(opts.project), opts.mr));
  },
});
