import { ARCHIVE_FORMATS, repositoryTree } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { collect, parseChoice } from '../../parse.js';
import { routeSource } from '../../download/engine.js';
import { downloadOptions, extractOption, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { repoPath } from '../../git/content.js';
import { DownloadResult } from '../../download/result.js';

export default defineCommand<DownloadFlags & { project?: string; ref?: string; format: string; path?: string; exclude?: string[]; lfs: boolean }>({
  effect: 'read',
  description:
    "Streams the archive to --output-file or stdout (at a terminal without either: to PROJECT[-REF].FORMAT in the current folder), checked whole (every zip CRC, the gzip trailer, the tar structure) before it gets its name. --extract unpacks it into a new or empty folder without the archive's top folder (<project>-<ref>-<sha>/), safely: nothing lands outside the folder, links are skipped, only the executable bit is kept.",
  examples: [
    'forgectl repo archive --project acme/api --format zip -O api.zip',
    'forgectl repo archive --project acme/api --ref v1.0.0 --extract ./api-1.0.0',
    'forgectl repo archive --project acme/api --path docs --exclude docs/drafts > docs.tar.gz',
  ],
  options: [
    projectOption,
    { flags: '--ref <ref>', description: 'branch, tag or commit (default: the default branch)' },
    { flags: '--format <format>', description: `${ARCHIVE_FORMATS.slice(0, 4).join(', ')} (also tgz, bz2, tbz, tbz2, tb2)`, default: 'tar.gz', parse: parseChoice('--format', ARCHIVE_FORMATS) },
    { flags: '--path <path>', description: 'only this folder of the repository' },
    { flags: '--exclude <path>', description: 'leave this path out (repeatable)', parse: collect },
    { flags: '--no-lfs', description: 'Git LFS pointers instead of the LFS objects' },
    ...downloadOptions,
    extractOption,
  ],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const name = `${String(project).split('/').pop()}${opts.ref ? `-${opts.ref.replace(/[^\w.-]+/g, '-')}` : ''}.${opts.format}`;
    const download = await prepareDownload(ctx, opts, { description: `archive of ${project}`, verify: 'archive', extract: { dir: opts.extract ?? '', stripComponents: 1 } }, name);
    const source = routeSource(
      ctx.api,
      repositoryTree.routes.archive,
      {
        project,
        sha: opts.ref,
        path: opts.path ? repoPath(opts.path) : undefined,
        exclude_paths: opts.exclude?.map((p) => repoPath(p, '--exclude')),
        include_lfs_blobs: opts.lfs === false ? false : undefined,
      },
      `.${opts.format}`,
    );
    return new DownloadResult(source, download);
  },
});
