import { repositoryFiles } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { routeSource } from '../../download/engine.js';
import { downloadOptions, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { repoPath } from '../../git/content.js';
import { DownloadResult } from '../../download/result.js';
import { fileHeaders } from './info.js';
import { refOption } from './shared.js';

export default defineCommand<DownloadFlags & { project?: string; path: string; ref?: string; lfs?: boolean }>({
  effect: 'read',
  description:
    'Streams the file to --output-file or stdout. Its size and sha256 are checked against what the service announces (and --sha256): on a mismatch nothing is written (exit 8).',
  examples: [
    'forgectl files raw README.md --ref main -O api-README.md --project acme/api',
    'forgectl files raw assets/logo.png --project acme/api > logo.png',
    'forgectl files raw assets/logo.png --project acme/api -O logo-copy.png --resume',
  ],
  args: ['<path>'],
  options: [projectOption, refOption(false), { flags: '--lfs', description: 'the Git LFS object instead of its pointer' }, ...downloadOptions],
  async run(opts, ctx) {
    const filePath = repoPath(opts.path);
    const download = await prepareDownload(ctx, opts, {
      description: filePath,
      expect: (response) => {
        const info = fileHeaders(response.header);
        return { sha256: info.content_sha256 as string | undefined, size: info.size as number | undefined };
      },
    });
    const source = routeSource(ctx.api, repositoryFiles.routes.raw, { project: ctx.project(opts.project), file_path: filePath, ref: opts.ref, lfs: opts.lfs || undefined });
    return new DownloadResult(source, download);
  },
});
