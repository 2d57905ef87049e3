import { submodules } from '../../api/resources/files.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { isFullSha } from '../../git/objects.js';
import { repoPath } from '../../git/content.js';

function parseSha(value: string): string {
  if (!isFullSha(value)) throw new UsageError(`--sha must be a full commit SHA (40 or 64 hexadecimal characters), got "${value}"`);
  return value.toLowerCase();
}

export default defineCommand<{ project?: string; path: string; sha: string; branch: string; message?: string }>({
  description: 'Points the submodule at PATH to another commit, in one commit on --branch.',
  examples: ['forgectl submodules update vendor/common --sha 3f4e5a1b2c3d4e5f60718293a4b5c6d7e8f90123 --branch main --project acme/api'],
  args: ['<path>'],
  options: [
    projectOption,
    { flags: '--sha <sha>', description: 'the full commit SHA the submodule should point to', required: true, parse: parseSha },
    { flags: '--branch <branch>', description: 'the branch to commit to', required: true },
    { flags: '-m, --message <text>', description: 'commit message (default: the service\'s)' },
  ],
  async run(opts, ctx) {
    return ctx.api.call(submodules.routes.update!, {
      project: ctx.project(opts.project),
      submodule: repoPath(opts.path),
      branch: opts.branch,
      commit_sha: opts.sha,
      commit_message: opts.message,
    });
  },
});
