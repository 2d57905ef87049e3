import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { filesPath, secureFileColumns } from './shared.js';

export default defineCommand<{ project?: string }>({
  description: 'Secure files of a project (CI/CD files such as keystores and provisioning profiles). Needs the Developer role.',
  examples: ['forgectl secure-files list --project acme/api'],
  options: [projectOption],
  list: true,
  columns: secureFileColumns,
  async run(opts, ctx) {
    return ctx.api.list(filesPath(ctx.project(opts.project)), {}, ctx.paging);
  },
});
