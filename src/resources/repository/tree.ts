import { repositoryTree } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { repoPath } from '../../git/content.js';

export default defineCommand<{ project?: string; path?: string; ref?: string; recursive?: boolean }>({
  effect: 'read',
  description: 'The service pages trees by keyset only: --all and --limit follow its next links.',
  examples: ['forgectl repo tree --project acme/api', 'forgectl repo tree src --ref v1.0.0 --project acme/api', 'forgectl repo tree --recursive --all --project acme/api -o json'],
  args: [{ spec: '[path]', description: 'the folder to list (default: the root)' }],
  options: [projectOption, { flags: '--ref <ref>', description: 'branch, tag or commit (default: the default branch)' }, { flags: '-r, --recursive', description: 'every level below the path' }],
  list: 'keyset',
  columns: repositoryTree.columns,
  async run(opts, ctx) {
    return ctx.api.list(
      repositoryTree.routes.list,
      { project: ctx.project(opts.project), path: opts.path ? repoPath(opts.path) : undefined, ref: opts.ref, recursive: opts.recursive || undefined },
      { ...ctx.paging, keysetOnly: true },
    );
  },
});
