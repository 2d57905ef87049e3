import { submodules } from './resource.js';
import { repositoryTree } from '../repository/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError, UsageError } from '../../errors.js';
import { isFullSha } from '../../git/objects.js';
import { repoPath } from '../../git/content.js';

function parseSha(value: string): string {
  if (!isFullSha(value)) throw new UsageError(`--sha must be a full commit SHA (40 or 64 hexadecimal characters), got "${value}"`);
  return value.toLowerCase();
}

export default defineCommand<{ project?: string; path: string; sha: string; branch: string; message?: string }>({
  effect: 'write',
  description: 'Points the submodule at PATH to another commit, in one commit on --branch. When it already points there, it says "nothing to change" and exits 0 (no commit).',
  examples: ['forgectl submodules update vendor/common --sha 3f4e5a1b2c3d4e5f60718293a4b5c6d7e8f90123 --branch main --project acme/api'],
  args: [{ spec: '<path>', description: 'the submodule\'s path in the repository' }],
  options: [
    projectOption,
    { flags: '--sha <sha>', description: 'the full commit SHA the submodule should point to', required: true, parse: parseSha },
    { flags: '--branch <branch>', description: 'the branch to commit to', required: true },
    { flags: '-m, --message <text>', description: 'commit message (default: the service\'s)' },
  ],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const path = repoPath(opts.path);
    const current = await submoduleCommit(ctx.api, project, path, opts.branch);
    if (current === opts.sha) {
      ctx.io.note(`nothing to change: submodule ${path} on ${opts.branch} already points to ${opts.sha.slice(0, 8)}`);
      return undefined;
    }
    return ctx.api.call(submodules.routes.update, {
      project,
      submodule: path,
      branch: opts.branch,
      commit_sha: opts.sha,
      commit_message: opts.message,
    });
  },
});

/** The commit the submodule at PATH points to on the branch; undefined when there is none (the service then says why). */
async function submoduleCommit(api: Context['api'], project: string, path: string, branch: string): Promise<string | undefined> {
  const slash = path.lastIndexOf('/');
  try {
    const entries = api.list<{ path: string; type: string; id: string }>(repositoryTree.routes.list, { project, ref: branch, path: slash > 0 ? path.slice(0, slash) : undefined }, { all: true, perPage: 100 });
    for await (const entry of entries) if (entry.path === path) return entry.type === 'commit' ? entry.id.toLowerCase() : undefined;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
  return undefined;
}
