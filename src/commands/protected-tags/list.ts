import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { tagsPath } from './shared.js';

export default defineCommand<{ project?: string }>({
  examples: ['forgectl protected-tags list --project acme/api', 'forgectl protected-tags list --project acme/api -o json'],
  options: [projectOption],
  list: true,
  columns: ['name', 'create_access_levels'],
  async run(opts, ctx) {
    return ctx.api.list(tagsPath(ctx.project(opts.project)), {}, ctx.paging);
  },
});
