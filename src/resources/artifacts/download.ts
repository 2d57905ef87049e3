import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifacts } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { globMatcher } from '../../glob.js';
import { projectOption } from '../../cli/options.js';
import { collect } from '../../parse.js';
import { download, routeSource } from '../../download/engine.js';
import { downloadOptions, extractOption, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { UsageError } from '../../errors.js';
import { DownloadResult } from '../../download/result.js';
import { explained, selectorOptions, target, type JobSelector } from './shared.js';

type Options = JobSelector & DownloadFlags & { include?: string[]; list?: boolean };

export default defineCommand<Options>({
  effect: 'read',
  description:
    'Downloads the artifacts archive of a job (at a terminal without -O: to artifacts.zip in the current folder), streamed to disk through ' +
    'FILE.part (memory stays flat at any size) and checked whole (every entry\'s CRC-32, every local header against the central directory) before it gets its name, with a ' +
    'progress bar on a terminal; --resume continues an interrupted download. --extract unpacks it into a new or empty folder safely ' +
    '(nothing lands outside it, links are skipped); --include picks entries (`dist/**`, `*.xml`); --list shows the entries instead. ' +
    '--ref with --job-name takes the job from the latest successful pipeline of a branch or tag (a parent pipeline\'s job wins over a ' +
    "child's). In a CI job the job's token is used (CI_JOB_TOKEN). A 404 says why when the service lets it find out.",
  examples: [
    'forgectl artifacts download --project acme/api --ref main --job-name build --extract out/',
    'forgectl artifacts download --project acme/api --job 7 -O artifacts.zip --resume',
    "forgectl artifacts download --project acme/api --ref v1.0.0 --job-name build --extract dist/ --include 'dist/**'",
    'forgectl artifacts download --project acme/api --job 7 --list',
  ],
  options: [
    projectOption,
    ...selectorOptions,
    ...downloadOptions,
    extractOption,
    { flags: '--include <glob>', description: 'with --extract or --list: only entries matching (repeatable; `*` within a folder, `**` across folders)', parse: collect },
    { flags: '--list', description: 'list the entries of the archive (name, size) instead of saving or extracting it' },
  ],
  columns: ['name', 'size', 'type'],
  async run(opts, ctx) {
    const t = target(opts, ctx);
    if (opts.list && opts.extract) throw new UsageError('give --list or --extract, not both');
    if (opts.include && !opts.extract && !opts.list) throw new UsageError('--include picks entries to --extract or --list');
    const include = globMatcher(opts.include);
    const route = 'job' in t ? artifacts.routes.archive : artifacts.routes.archiveByRef;
    const params = 'job' in t ? { project: t.project, job_id: t.job } : { project: t.project, ref_name: t.ref, job: t.jobName };
    const source = explained(routeSource(ctx.api, route, params), ctx, t, 'the artifacts archive');
    const description = `artifacts of ${'job' in t ? `job ${t.job}` : `${t.jobName}@${t.ref}`}`;

    if (opts.list) {
      // The central directory is at the end of a zip: read with byte ranges where the service serves them; else (and
      // with -O FILE, which keeps the archive) the archive is downloaded.
      const kept = opts.outputFile && opts.outputFile !== '-' ? opts.outputFile : undefined;
      const remote = kept ? undefined : await (await import('../../download/remote-zip.js')).listRemoteZip(source);
      if (remote) return include ? remote.filter((entry) => include(entry.name)) : remote;
      const options = await prepareDownload(ctx, { ...opts, outputFile: kept }, { description });
      const dir = kept ? undefined : mkdtempSync(join(tmpdir(), 'forgectl-artifacts-'));
      try {
        const file = kept ?? join(dir!, 'artifacts.zip');
        await download(source, { ...options, outputFile: file, temporary: !kept }, ctx.io);
        const { listZip } = await import('../../download/extract.js');
        const entries = await listZip(file);
        return include ? entries.filter((entry) => include(entry.name)) : entries;
      } finally {
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    }
    const options = await prepareDownload(ctx, opts, { description, verify: 'archive', extract: { dir: opts.extract ?? '', include } }, 'artifacts.zip');
    return new DownloadResult(source, options);
  },
});
