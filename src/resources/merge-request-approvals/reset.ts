import { defineCommand } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { mrOption } from '../merge-requests/review-options.js';
import { approvalsOf, routes } from './shared.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'destructive',
  description: 'Only the bot user of a project or group access token may reset approvals; people get 401 (exit 4).',
  examples: ['FORGECTL_TOKEN="$PROJECT_BOT_TOKEN" forgectl approvals reset --project acme/api --mr 1 --yes'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.confirm(`Remove every approval of merge request !${opts.mr} of ${project}?`);
    try {
      await ctx.api.call(routes.reset, approvalsOf(project, opts.mr));
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        throw error.explained(error.message, 'only bot users of project or group access tokens may reset approvals: use such a token (FORGECTL_TOKEN)');
      }
      throw error;
    }
    ctx.io.note(`Reset the approvals of merge request !${opts.mr} of ${project}`);
    return undefined;
  },
});
