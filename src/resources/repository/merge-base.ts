import { repositoryTree } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';

export default defineCommand<{ project?: string; refs: string[] }>({
  effect: 'read',
  description: 'The best common ancestor of two or more branches, tags or commits.',
  examples: ['forgectl repo merge-base main feature --project acme/api', 'forgectl repo merge-base main feature stable --project acme/api --fields id'],
  args: [{ spec: '<refs...>', description: 'two or more branches, tags or commit SHAs' }],
  options: [projectOption],
  async run(opts, ctx) {
    if (opts.refs.length < 2) throw new UsageError('give at least two refs');
    return ctx.api.call(repositoryTree.routes.mergeBase, { project: ctx.project(opts.project), refs: opts.refs });
  },
});
