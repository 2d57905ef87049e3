import { artifacts } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { routeSource } from '../../download/engine.js';
import { downloadOptions, prepareDownload, type DownloadFlags } from '../../cli/download-options.js';
import { DownloadResult } from '../../download/result.js';
import { artifactPath, explained, selectorOptions, target, type JobSelector } from './shared.js';

export default defineCommand<JobSelector & DownloadFlags & { path: string }>({
  effect: 'read',
  description:
    'Streams one file out of a job\'s artifacts archive, without downloading the archive, to --output-file or stdout. PATH is the ' +
    'path inside the archive (see `artifacts download --list`).',
  examples: [
    'forgectl artifacts file dist/app.js --project acme/api --ref main --job-name build > app.js',
    'forgectl artifacts file dist/VERSION --project acme/api --job 4 -O VERSION',
  ],
  args: ['<path>'],
  options: [projectOption, ...selectorOptions, ...downloadOptions],
  async run(opts, ctx) {
    const t = target(opts, ctx);
    const path = artifactPath(opts.path);
    const route = 'job' in t ? artifacts.routes.file : artifacts.routes.fileByRef;
    const params = 'job' in t ? { project: t.project, job_id: t.job, artifact_path: path } : { project: t.project, ref_name: t.ref, artifact_path: path, job: t.jobName };
    const options = await prepareDownload(ctx, opts, { description: path });
    return new DownloadResult(explained(routeSource(ctx.api, route, params), ctx, t, `the file ${path} in the artifacts`, path), options);
  },
});
