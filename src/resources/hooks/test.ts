import { HOOK_EVENTS, hooks, type Hook, type HookEvent } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { EVENT_NAMES, eventFlag, hookIdArg, hookIdOf, hookStatus } from './shared.js';

export default defineCommand<{ project?: string; id: string; trigger: string }>({
  effect: 'write',
  description:
    'Sends a sample event to the receiver now and shows what it answered. A test is delivered even to a disabled hook, and a 2xx answer ' +
    're-enables a hook the service disabled after failures. The service allows 5 tests a minute per project. Needs the Maintainer role.',
  examples: ['forgectl hooks test 1 --project acme/api', 'forgectl hooks test 1 --project acme/api --trigger merge_requests'],
  args: [hookIdArg],
  options: [projectOption, { flags: '--trigger <event>', description: `the sample event to send (${EVENT_NAMES.join(', ')})`, default: 'push' }],
  async run(opts, ctx) {
    const id = hookIdOf(opts.id);
    const flag = eventFlag('--trigger', opts.trigger);
    const route = { project: ctx.project(opts.project), hook_id: id };
    const before = await ctx.api.call<Hook>(hooks.routes.get, route);
    try {
      await ctx.api.call(hooks.routes.test, { ...route, trigger: flag });
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) {
        // The service answers with the receiver's body only; its status is in the delivery the test logged.
        const [latest] = await ctx.api.call<HookEvent[]>(hooks.routes.events, { ...route, per_page: 1 }).catch(() => []);
        const logged = latest && latest.trigger === HOOK_EVENTS[flag].trigger && [latest.response_body, latest.response_status].includes(error.message);
        const answer = !logged ? '' : /^\d+$/.test(latest.response_status) ? `the receiver answered ${latest.response_status}: ` : 'the receiver could not be reached: ';
        throw new CliError(`the test of webhook ${id} (${HOOK_EVENTS[flag].name}) failed: ${answer}${error.message}`, ExitCode.rejected, `the receiver must answer 2xx; see: forgectl hooks events ${id} --project ${route.project} --limit 1 -o json`);
      }
      throw error;
    }
    const after = await ctx.api.call<Hook>(hooks.routes.get, route);
    const [latest] = await ctx.api.call<HookEvent[]>(hooks.routes.events, { ...route, per_page: 1 });
    if (before.alert_status !== 'executable' && after.alert_status === 'executable') ctx.io.note(`webhook ${id} was ${hookStatus(before)}; the successful test re-enabled it`);
    return {
      hook_id: id,
      trigger: latest?.trigger ?? HOOK_EVENTS[flag].trigger,
      response_status: latest?.response_status ?? null,
      execution_duration: latest?.execution_duration ?? null,
      status: hookStatus(after),
    };
  },
});
