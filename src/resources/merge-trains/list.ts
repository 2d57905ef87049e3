import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice } from '../../parse.js';
import { mergeTrains } from './resource.js';

export default defineCommand<{ project?: string; branch?: string; scope?: string; sort?: string }>({
  effect: 'read',
  description: 'Without --branch, the entries of every train of the project are mixed, newest first. Needs Premium and the Developer role.',
  examples: [
    'forgectl merge-trains list --project acme/api',
    'forgectl merge-trains list --project acme/api --branch main --scope active --sort asc',
  ],
  options: [
    projectOption,
    { flags: '--branch <name>', description: 'only the train of this target branch' },
    { flags: '--scope <scope>', description: 'active (waiting to merge) or complete (merged)', parse: parseChoice('--scope', ['active', 'complete']) },
    { flags: '--sort <order>', description: 'asc or desc by creation (default desc)', parse: parseChoice('--sort', ['asc', 'desc']) },
  ],
  list: true,
  columns: mergeTrains.columns,
  async run(opts, ctx) {
    const [project, query] = [ctx.project(opts.project), { scope: opts.scope, sort: opts.sort }];
    return opts.branch === undefined
      ? ctx.api.list(mergeTrains.routes.list, { project, ...query }, ctx.paging)
      : ctx.api.list(mergeTrains.routes.ofBranch, { project, target_branch: opts.branch, ...query }, ctx.paging);
  },
});
