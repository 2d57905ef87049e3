import { repositoryTree } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice } from '../../parse.js';

export default defineCommand<{ project?: string; ref?: string; orderBy?: string; sort?: string }>({
  effect: 'read',
  description: 'Commit counts by author; merge commits are not counted.',
  examples: ['forgectl repo contributors --project acme/api --order-by commits --sort desc'],
  options: [
    projectOption,
    { flags: '--ref <ref>', description: 'branch or tag (default: the default branch)' },
    { flags: '--order-by <field>', description: 'name, email or commits (default commits)', parse: parseChoice('--order-by', ['name', 'email', 'commits'] as const) },
    { flags: '--sort <order>', description: 'asc (default) or desc', parse: parseChoice('--sort', ['asc', 'desc'] as const) },
  ],
  list: true,
  columns: ['name', 'email', 'commits', 'additions', 'deletions'],
  async run(opts, ctx) {
    return ctx.api.list(repositoryTree.routes.contributors, { project: ctx.project(opts.project), ref: opts.ref, order_by: opts.orderBy, sort: opts.sort }, ctx.paging);
  },
});
