import { artifacts, type Job } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { UsageError } from '../../errors.js';
import { jobOption } from './shared.js';

export default defineCommand<{ project?: string; job?: number }>({
  effect: 'destructive',
  description: "Deletes the artifacts of one job now; the job and its log stay. Needs the Maintainer role.",
  examples: ['forgectl artifacts delete --job 7 --project acme/api --yes'],
  options: [projectOption, { ...jobOption, description: 'the job whose artifacts to delete' }],
  async run(opts, ctx) {
    if (opts.job === undefined) throw new UsageError('which job? give --job ID');
    const project = ctx.project(opts.project);
    const route = { project, job_id: opts.job };
    const job = await ctx.api.call<Job>(artifacts.routes.get, route);
    const size = job.artifacts?.reduce((sum, a) => sum + (a.size ?? 0), 0) ?? 0;
    await ctx.confirm(`Delete the artifacts of job ${job.id} (${job.name}, ${job.ref}, ${size.toLocaleString('en-US')} bytes) of project ${project}? The job log is kept.`);
    await ctx.api.call(artifacts.routes.delete, route);
    ctx.io.note(`deleted the artifacts of job ${job.id}`);
    return undefined;
  },
});
