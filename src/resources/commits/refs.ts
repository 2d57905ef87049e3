import { commits } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';
import { parseChoice } from '../../parse.js';

export default defineCommand<{ project?: string; sha: string; type?: string }>({
  effect: 'read',
  description: 'The branches and tags that contain the commit.',
  examples: ['forgectl commits refs main --project acme/api', 'forgectl commits refs v1.0.0 --type branch --project acme/api'],
  args: [commitArg],
  options: [projectOption, { flags: '--type <type>', description: 'branch, tag or all (default)', parse: parseChoice('--type', ['branch', 'tag', 'all'] as const) }],
  list: true,
  columns: ['type', 'name'],
  async run(opts, ctx) {
    return ctx.api.list(commits.routes.refs, { project: ctx.project(opts.project), sha: opts.sha, type: opts.type }, ctx.paging);
  },
});
