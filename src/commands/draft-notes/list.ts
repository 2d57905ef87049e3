import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotesPath } from '../../api/review.js';
import { mrOption } from '../review-options.js';
import { draftColumns } from './shared.js';

export default defineCommand<{ project?: string; mr: number }>({
  description: 'Only your own drafts: nobody else sees them until they are published.',
  examples: ['forgectl draft-notes list --project acme/api --mr 1'],
  options: [projectOption, mrOption],
  columns: draftColumns,
  async run(opts, ctx) {
    // The service returns every draft at once (not paginated).
    return ctx.api.get<unknown[]>(draftNotesPath(ctx.project(opts.project), opts.mr));
  },
});
