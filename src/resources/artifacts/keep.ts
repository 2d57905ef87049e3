import { artifacts } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { jobOption } from './shared.js';
import { UsageError } from '../../errors.js';

export default defineCommand<{ project?: string; job?: number }>({
  effect: 'write',
  description: 'Keeps the artifacts of a job from expiring (their expiry date is removed). Needs the Developer role.',
  examples: ['forgectl artifacts keep --job 7 --project acme/api'],
  options: [projectOption, { ...jobOption, description: 'the job whose artifacts to keep' }],
  async run(opts, ctx) {
    if (opts.job === undefined) throw new UsageError('which job? give --job ID');
    return ctx.api.call(artifacts.routes.keep, { project: ctx.project(opts.project), job_id: opts.job });
  },
});
