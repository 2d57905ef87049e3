import { routeOf } from '../../api/resource.js';
import { defineCommand, type CommandDef } from '../../cli/command.js';
import { byId, describeRunner, runnerId, runnerIdArg } from './shared.js';

/** pause and resume: PUT paused; the runner keeps running the jobs it has and takes no new ones while paused. */
function pausing(paused: boolean, examples: string[]): CommandDef<{ id: string }> {
  return defineCommand<{ id: string }>({
    effect: 'write',
    description: paused
      ? 'It finishes the jobs it is running and takes no new ones until resumed. Administrators, or the Maintainer of its group or project.'
      : 'It takes new jobs again. Administrators, or the Maintainer of its group or project.',
    examples,
    args: [runnerIdArg],
    async run(opts, ctx) {
      const runner = await ctx.api.call<{ id: number; description: string }>(routeOf(byId, 'update'), { runner_id: runnerId(opts.id), paused });
      if (runner) ctx.io.note(`${paused ? 'Paused' : 'Resumed'} ${describeRunner(runner)}`);
      return runner;
    },
  });
}

export default {
  pause: pausing(true, ['forgectl runners pause 5', 'forgectl runners pause 5 -o json']),
  resume: pausing(false, ['forgectl runners resume 5']),
};
