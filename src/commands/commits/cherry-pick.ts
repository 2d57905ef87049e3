import { commits } from '../../api/resources/commits.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError, CliError } from '../../errors.js';

export default defineCommand<{ project?: string; sha: string; branch: string; message?: string; check?: boolean }>({
  description:
    'Applies the commit to --branch as a new commit. --check asks the service whether it would apply cleanly, committing nothing (the global --dry-run sends nothing at all). A commit already on the branch (empty) or one that conflicts is refused with exit 6.',
  examples: ['forgectl commits cherry-pick feature --branch main --check --project acme/api', 'forgectl commits cherry-pick feature --branch main --project acme/api'],
  args: ['<sha>'],
  options: [
    projectOption,
    { flags: '--branch <branch>', description: 'the branch to apply the commit to', required: true },
    { flags: '-m, --message <text>', description: 'message of the new commit (default: the original, with a "cherry picked from" line)' },
    { flags: '--check', description: 'only check that it applies cleanly' },
  ],
  async run(opts, ctx) {
    try {
      const result = await ctx.api.call<Record<string, unknown>>(commits.routes.cherryPick, { project: ctx.project(opts.project), sha: opts.sha, branch: opts.branch, message: opts.message, dry_run: opts.check || undefined });
      if (opts.check) ctx.io.note(`${opts.sha} applies cleanly to ${opts.branch}; nothing was committed`);
      else ctx.io.note(`Cherry-picked ${opts.sha} onto ${opts.branch} as ${String(result.short_id ?? result.id)}`);
      return result;
    } catch (error) {
      const code = error instanceof ApiError ? (error.body as { error_code?: string } | undefined)?.error_code : undefined;
      if (!(error instanceof ApiError) || !code) throw error;
      const reason =
        code === 'empty'
          ? `cherry-picking ${opts.sha} onto ${opts.branch} changes nothing: the commit is probably already on the branch`
          : code === 'conflict'
            ? `cherry-picking ${opts.sha} onto ${opts.branch} conflicts with changes on the branch`
            : `cannot cherry-pick ${opts.sha} onto ${opts.branch} (${code})`;
      throw new CliError(`${reason} (${error.method} ${error.path} → ${error.status})`, error.exitCode, code === 'conflict' ? 'apply it locally with git cherry-pick and resolve the conflict' : undefined);
    }
  },
});
