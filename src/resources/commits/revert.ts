import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';
import { applyCommit } from './apply.js';

export default defineCommand<{ project?: string; sha: string; branch: string; check?: boolean }>({
  effect: 'write',
  description:
    'Undoes the commit on --branch with a new commit ("Revert …"). --check asks the service whether the revert would apply cleanly, committing nothing. A commit already reverted (empty) or one whose lines changed since (conflict) is refused with exit 6.',
  examples: ['forgectl commits revert v1.1.0 --branch main --check --project acme/api', 'forgectl commits revert v1.1.0 --branch main --project acme/api'],
  args: [commitArg],
  options: [
    projectOption,
    { flags: '--branch <branch>', description: 'the branch to revert the commit on', required: true },
    { flags: '--check', description: 'only check that the revert applies cleanly' },
  ],
  run: (opts, ctx) => applyCommit(ctx, 'revert', opts),
});
