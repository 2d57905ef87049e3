import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice } from '../../parse.js';
import { notesPath } from '../../api/review.js';
import { noteableOf, noteableOptions, noteColumns, type NoteableOptions } from './shared.js';

export default defineCommand<NoteableOptions & { sort?: string; orderBy?: string; activityFilter?: string }>({
  description: 'System notes (changes recorded by the service) are listed with the comments; --activity-filter only_comments leaves them out.',
  examples: [
    'forgectl notes list --project acme/api --issue 1',
    'forgectl notes list --project acme/api --snippet 1 --sort asc --order-by updated_at',
  ],
  options: [
    projectOption,
    ...noteableOptions,
    { flags: '--sort <order>', description: 'asc or desc (default desc)', parse: parseChoice('--sort', ['asc', 'desc']) },
    { flags: '--order-by <field>', description: 'created_at (default) or updated_at', parse: parseChoice('--order-by', ['created_at', 'updated_at']) },
    { flags: '--activity-filter <filter>', description: 'all_notes (default), only_comments or only_activity', parse: parseChoice('--activity-filter', ['all_notes', 'only_comments', 'only_activity']) },
  ],
  list: true,
  columns: noteColumns,
  async run(opts, ctx) {
    const query = { sort: opts.sort, order_by: opts.orderBy, activity_filter: opts.activityFilter };
    return ctx.api.list(notesPath(ctx.project(opts.project), noteableOf(opts)), query, ctx.paging);
  },
});
