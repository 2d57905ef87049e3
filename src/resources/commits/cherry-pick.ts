import { defineCommand } from '../../cli/command.js';
import { commitArg, projectOption } from '../../cli/options.js';
import { applyCommit } from './apply.js';

export default defineCommand<{ project?: string; sha: string; branch: string; message?: string; check?: boolean }>({
  effect: 'write',
  description:
    'Applies the commit to --branch as a new commit. --check asks the service whether it would apply cleanly, committing nothing (the global --dry-run sends nothing at all). A commit already on the branch (empty) or one that conflicts is refused with exit 6.',
  examples: ['forgectl commits cherry-pick feature --branch main --check --project acme/api', 'forgectl commits cherry-pick feature --branch main --project acme/api'],
  args: [commitArg],
  options: [
    projectOption,
    { flags: '--branch <branch>', description: 'the branch to apply the commit to', required: true },
    { flags: '-m, --message <text>', description: 'message of the new commit (default: the original, with a "cherry picked from" line)' },
    { flags: '--check', description: 'only check that it applies cleanly' },
  ],
  run: (opts, ctx) => applyCommit(ctx, 'cherry-pick', opts),
});
