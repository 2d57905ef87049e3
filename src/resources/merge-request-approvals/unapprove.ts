import { defineCommand } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { mrOption } from '../merge-requests/review-options.js';
import { approvalsOf, routes, type ApprovalState } from './shared.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'destructive',
  examples: ['forgectl approvals unapprove --project acme/api --mr 1'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    try {
      return await ctx.api.call(routes.unapprove, approvalsOf(project, opts.mr));
    } catch (error) {
      // 404 means either no such merge request or no approval of yours on it; say which.
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      const state = await ctx.api.call<ApprovalState>(routes.get, approvalsOf(project, opts.mr));
      if (state.user_has_approved) throw error;
      throw error.explained(`you have not approved merge request !${opts.mr} of ${project}`);
    }
  },
});
