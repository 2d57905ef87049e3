import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError, UsageError } from '../../errors.js';
import { deleteStale, STALE_DELETE_COLUMNS } from './prune.js';
import { byId, describeRunner, runnerId, runnerOwners, type RunnerOwners } from './shared.js';
import { deleteScopeOptions, staleOption, typeOption, type StaleOptions } from './stale.js';

interface Runner extends RunnerOwners {
  id: number;
  description: string;
  status: string;
  contacted_at: string | null;
}

/** Whose runner it is, in words: "an instance runner", "a runner of group acme", "a runner of project acme/api". */
function owner(runner: Runner): string {
  const owners = runnerOwners(runner);
  if (runner.runner_type === 'group_type') return `a runner of group ${owners.join(', ') || '?'}`;
  if (runner.runner_type === 'project_type' && owners.length > 1) return `a runner of projects ${owners.join(', ')} (deleting it takes it from all ${owners.length})`;
  if (runner.runner_type === 'project_type') return `a runner of project ${owners.join(', ') || '?'}`;
  return 'an instance runner (every project may use it)';
}

type Options = Partial<StaleOptions> & { id?: string };

export default defineCommand<Options>({
  effect: 'destructive',
  description: [
    'Shows whose runner it is and when it was last seen, and asks first (--yes without a terminal). The runner',
    'machine is not touched: it only loses its registration and gets 403 from then on. A project runner used by',
    'several projects is taken from them all: the question names them (the service lets only administrators delete',
    'it). Administrators, or the Maintainer of its group or project.',
    'With --stale DURATION instead of an ID: every runner of the scope not contacted for that long (a group\'s or',
    'project\'s own, not the ones it only uses), listed and asked for, then deleted 50 at a time (as runners prune does).',
  ].join(' '),
  examples: ['forgectl runners delete 8 --yes', 'forgectl runners delete 9', 'forgectl runners delete --stale 90d --instance --dry-run'],
  args: [{ spec: '[id]', description: 'the runner\'s ID (or --stale)' }],
  options: [
    { ...staleOption(), required: false, description: 'instead of an ID: the runners not contacted for this long (30d, 8w, 12h), after asking' },
    ...deleteScopeOptions.map((option) => ({ ...option, description: `with --stale: ${option.description}` })),
    { ...typeOption, description: `with --stale: ${typeOption.description}` },
  ],
  columns: STALE_DELETE_COLUMNS,
  async run(opts, ctx) {
    const scoped = ['instance', 'group', 'project', 'type'].filter((name) => opts[name as keyof Options] !== undefined);
    if (opts.stale !== undefined) {
      if (opts.id !== undefined) throw new UsageError('give a runner\'s ID or --stale, not both');
      return deleteStale({ ...opts, stale: opts.stale }, ctx);
    }
    if (opts.id === undefined) throw new UsageError('which runner? give its ID, or --stale DURATION for every runner not contacted for that long', 'forgectl runners audit --stale 90d lists them first');
    if (scoped.length) throw new UsageError(`--${scoped[0]} goes with --stale`);
    const runner_id = runnerId(opts.id);
    const runner = await ctx.api.call<Runner>(routeOf(byId, 'get'), { runner_id }).catch((error: unknown) => {
      // The service's bare 403: the runner is one the caller may use (the instance's, a group's above) but not manage.
      if (!(error instanceof ApiError) || error.status !== 403 || error.hint) throw error;
      throw error.explained(error.message, "a runner is deleted by an administrator, or by a Maintainer of its group or project; forgectl runners list shows the ones you manage");
    });
    const seen = runner.contacted_at ? `last contact ${runner.contacted_at}` : 'never contacted';
    await ctx.confirm(`Delete ${describeRunner(runner)}, ${owner(runner)}, ${runner.status} (${seen})?`);
    await ctx.api.call(routeOf(byId, 'delete'), { runner_id });
    ctx.io.note(`Deleted ${describeRunner(runner)}`);
    return undefined;
  },
});
