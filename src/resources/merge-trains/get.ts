import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { mergeTrains } from './resource.js';
import { mrOption } from '../merge-requests/review-options.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'read',
  description: 'Exits 5 when the merge request is not on a merge train.',
  examples: ['forgectl merge-trains get --project acme/api --mr 1'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    return ctx.api.call(mergeTrains.routes.entry, { project: ctx.project(opts.project), merge_request_iid: opts.mr });
  },
});
