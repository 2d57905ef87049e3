import { RUNNER_JOB_STATUSES } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { parseChoice } from '../../parse.js';
import { byId, runnerId, runnerIdArg } from './shared.js';

const flatten = (job: Record<string, any>) => ({ ...job, project_path: job.project?.path_with_namespace ?? null, pipeline_id: job.pipeline?.id ?? null });

export default defineCommand<{ id: string; status?: string; sort?: 'asc' | 'desc' }>({
  effect: 'read',
  description: 'The jobs a runner ran or is running, newest first, across every project it serves. Administrators, or the Maintainer of its group or project.',
  examples: ['forgectl runners jobs 1', 'forgectl runners jobs 7 --status failed --sort asc -o json'],
  args: [runnerIdArg],
  options: [
    { flags: '--status <status>', description: RUNNER_JOB_STATUSES.join(', '), parse: parseChoice('--status', RUNNER_JOB_STATUSES) },
    { flags: '--sort <order>', description: 'asc or desc (default desc, by job id)', parse: parseChoice('--sort', ['asc', 'desc'] as const) },
  ],
  list: true,
  columns: ['id', 'status', 'name', 'stage', 'ref', 'project_path', 'pipeline_id', 'finished_at'],
  async run(opts, ctx) {
    return ctx.api.list<Record<string, unknown>>(byId.routes.jobs, { runner_id: runnerId(opts.id), status: opts.status, order_by: opts.sort ? 'id' : undefined, sort: opts.sort }, ctx.paging).map(flatten);
  },
});
