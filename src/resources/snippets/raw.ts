import { SNIPPET_BRANCH, snippets } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../parse.js';
import { routeSource } from '../../download/engine.js';
import { downloadOptions, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { UsageError } from '../../errors.js';
import { DownloadResult } from '../../download/result.js';
import { snippetPath } from './shared.js';

export default defineCommand<DownloadFlags & { project?: string; id: string; file?: string; ref?: string }>({
  effect: 'read',
  description:
    'Streams the content of a snippet (its first file), or of one file with --file, to --output-file or stdout. --ref reads the ' +
    `file at an earlier version of the snippet (a commit id of its repository; default ${SNIPPET_BRANCH}).`,
  examples: [
    'forgectl snippets raw 1 --project acme/api > checklist.md',
    'forgectl snippets raw 1 --project acme/api --file rollback.md -O rollback-v1.md',
  ],
  args: ['<id>'],
  options: [
    projectOption,
    { flags: '--file <path>', description: 'one file of the snippet', localFile: false },
    { flags: '--ref <ref>', description: `with --file: the version to read (default ${SNIPPET_BRANCH})` },
    ...downloadOptions,
  ],
  async run(opts, ctx) {
    const id = parseInteger('snippet id', 1)(opts.id);
    if (opts.ref && !opts.file) throw new UsageError('--ref goes with --file');
    const project = ctx.project(opts.project);
    const options = await prepareDownload(ctx, opts, { description: opts.file ?? `snippet ${id}` });
    const source = opts.file
      ? routeSource(ctx.api, snippets.parents.project.routes.fileRaw, { project, snippet_id: id, ref: opts.ref ?? SNIPPET_BRANCH, file_path: snippetPath(opts.file, '--file') })
      : routeSource(ctx.api, snippets.parents.project.routes.raw, { project, snippet_id: id });
    return new DownloadResult(source, options);
  },
});
