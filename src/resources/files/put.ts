import { withMissingBranchHint } from '../../api/commit-actions.js';
import { repositoryFiles } from './resource.js';
import { checkPushAllowed } from '../branches/protected-ref.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError } from '../../errors.js';
import { gitBlobId } from '../../git/objects.js';
import { repoPath } from '../../git/content.js';
import { fileInfo } from './info.js';
import { contentBody, contentOptions, readContent, writeBody, writeOptions, type ContentFlags, type WriteFlags } from './shared.js';

export default defineCommand<WriteFlags & ContentFlags & { project?: string; path: string }>({
  effect: 'write',
  description:
    "Creates the file, or updates it when it exists. Content identical to the branch's (same git blob id, same executable bit) changes nothing and exits 0: no empty commit. An update is guarded by the file's last commit, so a change made meanwhile is refused (exit 6), not overwritten.",
  examples: ['forgectl files put config/app.yml --branch main -m "Sync config" --content-file app.yml --project acme/api'],
  args: ['<path>'],
  options: [projectOption, ...writeOptions, ...contentOptions],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const filePath = repoPath(opts.path);
    const bytes = await readContent(ctx, opts.contentFile);
    let current: Record<string, unknown> | undefined;
    try {
      current = await fileInfo(ctx, project, filePath, opts.branch);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    if (current && current.blob_id === gitBlobId(bytes) && (opts.exec === undefined || opts.exec === current.execute_filemode)) {
      ctx.io.note(`${filePath} on ${opts.branch} already has this content: nothing to commit`);
      return current;
    }
    await checkPushAllowed(ctx, project, opts.branch);
    const verb = current ? 'update' : 'create';
    await ctx.api.call(repositoryFiles.routes[verb], {
      project,
      file_path: filePath,
      ...writeBody(opts),
      ...contentBody(bytes, opts),
      last_commit_id: current?.last_commit_id,
    }).catch((error: unknown) => {
      throw withMissingBranchHint(error, opts.branch);
    });
    ctx.io.note(`${current ? 'Updated' : 'Created'} ${filePath} on ${opts.branch}`);
    const { content: _content, ...record } = await ctx.api.call<Record<string, unknown>>(repositoryFiles.routes.get, { project, file_path: filePath, ref: opts.branch });
    return record;
  },
});
