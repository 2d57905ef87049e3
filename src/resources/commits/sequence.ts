import { commits } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';

export default defineCommand<{ project?: string; sha: string; firstParent?: boolean }>({
  effect: 'read',
  description: "The commit's sequence number: how many commits its history has, itself included.",
  examples: ['forgectl commits sequence main --project acme/api', 'forgectl commits sequence main --first-parent --project acme/api'],
  args: ['<sha>'],
  options: [projectOption, { flags: '--first-parent', description: 'count only first parents' }],
  async run(opts, ctx) {
    return ctx.api.call(commits.routes.sequence, { project: ctx.project(opts.project), sha: opts.sha, first_parent: opts.firstParent || undefined });
  },
});
