import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { badgeColumns, badgesPath } from './shared.js';

export default defineCommand<{ project?: string; name?: string }>({
  description: 'Lists the badges of the project and those it inherits from its groups (kind "group"; change those on the group).',
  examples: ['forgectl badges list --project acme/api', 'forgectl badges list --project acme/api --name coverage -o json'],
  options: [projectOption, { flags: '--name <name>', description: 'only badges with this name (case-sensitive)' }],
  list: true,
  columns: badgeColumns,
  async run(opts, ctx) {
    return ctx.api.list(badgesPath(ctx.project(opts.project)), { name: opts.name }, ctx.paging);
  },
});
