import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { byId, describeRunner, runnerId, runnerIdArg, runnerOwners, type RunnerOwners } from './shared.js';

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
  if (runner.runner_type === 'project_type') return `a runner of ${owners.length === 1 ? 'project' : 'projects'} ${owners.join(', ') || '?'}`;
  return 'an instance runner (every project may use it)';
}

export default defineCommand<{ id: string }>({
  effect: 'destructive',
  description: [
    'Shows whose runner it is and when it was last seen, and asks first (--yes without a terminal). The runner',
    'machine is not touched: it only loses its registration and gets 403 from then on. A project runner used by',
    'several projects is refused by the service. Administrators, or the Maintainer of its group or project.',
  ].join(' '),
  examples: ['forgectl runners delete 8 --yes', 'forgectl runners delete 9'],
  args: [runnerIdArg],
  async run(opts, ctx) {
    const runner_id = runnerId(opts.id);
    const runner = await ctx.api.call<Runner>(routeOf(byId, 'get'), { runner_id });
    const seen = runner.contacted_at ? `last contact ${runner.contacted_at}` : 'never contacted';
    await ctx.confirm(`Delete ${describeRunner(runner)}, ${owner(runner)}, ${runner.status} (${seen})?`);
    await ctx.api.call(routeOf(byId, 'delete'), { runner_id });
    ctx.io.note(`Deleted ${describeRunner(runner)}`);
    return undefined;
  },
});
