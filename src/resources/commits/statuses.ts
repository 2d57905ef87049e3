import { commitStatuses } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';

export default defineCommand<{ project?: string; sha: string; ref?: string; name?: string; history?: boolean }>({
  effect: 'read',
  description: 'The statuses of a commit: external CI reports (set-status) and pipeline jobs, the newest of each name and ref unless --history.',
  examples: ['forgectl commits statuses main --project acme/api', 'forgectl commits statuses main --history --name ci/build --project acme/api'],
  args: [commitArg],
  options: [
    projectOption,
    { flags: '--ref <ref>', description: 'only statuses reported for this branch or tag' },
    { flags: '--name <name>', description: 'only statuses of this name' },
    { flags: '--history', description: 'every status reported, not only the newest of each name' },
  ],
  list: true,
  columns: ['id', 'name', 'status', 'ref', 'target_url', 'created_at'],
  async run(opts, ctx) {
    return ctx.api.list(commitStatuses.routes.list, { project: ctx.project(opts.project), sha: opts.sha, ref: opts.ref, name: opts.name, all: opts.history || undefined }, ctx.paging);
  },
});
