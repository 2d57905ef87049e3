import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice } from '../../parse.js';
import { mergeTrainsPath } from '../../api/review.js';
import { trainColumns } from './shared.js';

export default defineCommand<{ project?: string; branch?: string; scope?: string; sort?: string }>({
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
  columns: trainColumns,
  async run(opts, ctx) {
    return ctx.api.list(mergeTrainsPath(ctx.project(opts.project), opts.branch), { scope: opts.scope, sort: opts.sort }, ctx.paging);
  },
});
