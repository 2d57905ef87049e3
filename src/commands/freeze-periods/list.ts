import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { freezeColumns, periodsPath } from './shared.js';

export default defineCommand<{ project?: string }>({
  description: 'Deploy freeze periods, oldest first. Needs the Reporter role.',
  examples: ['forgectl freeze-periods list --project acme/api'],
  options: [projectOption],
  list: true,
  columns: freezeColumns,
  async run(opts, ctx) {
    return ctx.api.list(periodsPath(ctx.project(opts.project)), {}, ctx.paging);
  },
});
