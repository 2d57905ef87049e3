import { commits } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';

export default defineCommand<{ project?: string; sha: string; stats: boolean }>({
  effect: 'read',
  examples: ['forgectl commits get main --project acme/api', 'forgectl commits get v1.0.0 --project acme/api --fields id,title,stats.total'],
  args: [commitArg],
  options: [projectOption, { flags: '--no-stats', description: 'leave out the added and removed line counts' }],
  async run(opts, ctx) {
    return ctx.api.call(commits.routes.get, { project: ctx.project(opts.project), sha: opts.sha, stats: opts.stats === false ? false : undefined });
  },
});
