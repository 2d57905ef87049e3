import { repositoryTree } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { routeSource } from '../../download/engine.js';
import { downloadOptions, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { UsageError } from '../../errors.js';
import { DownloadResult } from '../../download/result.js';

export default defineCommand<DownloadFlags & { project?: string; sha: string; raw?: boolean }>({
  effect: 'read',
  description: 'Without --raw: the blob record (size, base64 content). With --raw: the bytes, streamed to --output-file or stdout; given a full SHA, the bytes are checked against it as git hashes them (exit 8 and nothing written when they differ).',
  examples: ['forgectl repo blob 8c1b854b807d6add4ca2451de5bd1eb971d447bd --project acme/api', 'forgectl repo blob 8c1b854b --raw -O deploy.sh --project acme/api'],
  args: [{ spec: '<sha>', description: 'the blob\'s SHA (the id of a file in the repository tree)' }],
  options: [projectOption, { flags: '--raw', description: 'the raw bytes instead of the record' }, ...downloadOptions],
  async run(opts, ctx) {
    if (!/^[0-9a-f]{4,64}$/i.test(opts.sha)) throw new UsageError(`a blob SHA is hexadecimal, got "${opts.sha}"`);
    const params = { project: ctx.project(opts.project), sha: opts.sha.toLowerCase() };
    if (!opts.raw) {
      if (opts.outputFile || opts.resume || opts.sha256) throw new UsageError('--output-file, --resume and --sha256 need --raw');
      return ctx.api.call(repositoryTree.routes.blob, params);
    }
    const download = await prepareDownload(ctx, opts, { description: `blob ${opts.sha.slice(0, 8)}`, gitBlob: params.sha });
    return new DownloadResult(routeSource(ctx.api, repositoryTree.routes.blobRaw, params), download);
  },
});
