import { commits } from './resource.js';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError } from '../../errors.js';

/**
 * Cherry-picks or reverts a commit onto a branch (the service applies it and commits), or with `check` asks only
 * whether it would apply. A refusal (conflict, or nothing to change) is explained, with the service's exit code.
 */
export async function applyCommit(
  ctx: Context,
  action: 'cherry-pick' | 'revert',
  opts: { project?: string; sha: string; branch: string; message?: string; check?: boolean },
): Promise<Record<string, unknown>> {
  const route = action === 'revert' ? commits.routes.revert : commits.routes.cherryPick;
  const doing = action === 'revert' ? 'reverting' : 'cherry-picking';
  const onto = action === 'revert' ? 'on' : 'onto';
  try {
    const result = await ctx.api.call<Record<string, unknown>>(route, { project: ctx.project(opts.project), sha: opts.sha, branch: opts.branch, message: opts.message, dry_run: opts.check || undefined });
    if (opts.check) ctx.io.note(`${action === 'revert' ? 'Reverting' : 'Cherry-picking'} ${opts.sha} applies cleanly to ${opts.branch}; nothing was committed`);
    else ctx.io.note(`${action === 'revert' ? 'Reverted' : 'Cherry-picked'} ${opts.sha} ${onto} ${opts.branch} as ${String(result.short_id ?? result.id)}`);
    return result;
  } catch (error) {
    const code = error instanceof ApiError ? (error.body as { error_code?: string } | undefined)?.error_code : undefined;
    if (!(error instanceof ApiError) || !code) throw error;
    const reason =
      code === 'empty'
        ? `${doing} ${opts.sha} ${onto} ${opts.branch} changes nothing: the commit is probably already ${action === 'revert' ? 'reverted' : 'on the branch'}`
        : code === 'conflict'
          ? `${doing} ${opts.sha} ${onto} ${opts.branch} conflicts with changes on the branch`
          : `cannot ${action} ${opts.sha} ${onto} ${opts.branch} (${code})`;
    throw new CliError(`${reason} (${error.method} ${error.path} → ${error.status})`, error.exitCode, code === 'conflict' ? `apply it locally with git ${action} and resolve the conflict` : undefined);
  }
}
