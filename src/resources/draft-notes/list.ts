import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotes } from './resource.js';
import { mrOption } from '../merge-requests/review-options.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'read',
  description: 'Only your own drafts: nobody else sees them until they are published.',
  examples: ['forgectl draft-notes list --project acme/api --mr 1'],
  options: [projectOption, mrOption],
  columns: draftNotes.columns,
  async run(opts, ctx) {
    // The service returns every draft at once (not paginated).
    return ctx.api.call<unknown[]>(draftNotes.routes.list, { project: ctx.project(opts.project), merge_request_iid: opts.mr });
  },
});
