import { Pacer } from '../../api/pacer.js';
import { hooks, type Hook, type HookEvent } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger, plural, pluralNoun } from '../../parse.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { MAX_WAIT_MS } from '../../http/retry.js';
import { hookEvents, isSuccess, parseSince, type HookRoute } from './events.js';
import { hookIdArg, hookIdOf, hookStatus } from './shared.js';

/** The service's limit on resends: 5 a minute per webhook and user. */
export const RESENDS_PER_MINUTE = 5;
const WINDOW_MS = 60_000;

interface Options {
  project?: string;
  id: string;
  events: string[];
  failed?: boolean;
  since?: string;
}

interface Outcome {
  event_id: number;
  created_at: string | null;
  trigger: string | null;
  response_status: number | string | null;
  result: 'delivered' | 'failed' | 'not sent' | 'not found' | 'would resend';
  error?: string;
}

/**
 * The deliveries that never succeeded: events grouped by their Idempotency-Key (a resend keeps it), and for each key
 * with no 2xx answer the newest attempt; oldest first, so receivers get them in the order they happened.
 */
export function stillFailed(events: HookEvent[]): HookEvent[] {
  const byKey = new Map<string, HookEvent[]>();
  for (const event of events) {
    const key = event.request_headers?.['Idempotency-Key'] ?? `event-${event.id}`;
    byKey.set(key, [...(byKey.get(key) ?? []), event]);
  }
  return [...byKey.values()]
    .filter((attempts) => !attempts.some(isSuccess))
    .map((attempts) => attempts.reduce((newest, e) => (e.created_at > newest.created_at || (e.created_at === newest.created_at && e.id > newest.id) ? e : newest)))
    .sort((a, b) => (a.created_at === b.created_at ? a.id - b.id : a.created_at < b.created_at ? -1 : 1));
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Delivers recorded events again, with their original payload and Idempotency-Key. --failed picks the deliveries that never got a 2xx ' +
    'answer (an event already resent successfully is skipped). Resends are paced to the service limit of 5 a minute per webhook, waiting ' +
    'when needed; a 429 the service answers anyway is waited out as long as its Retry-After asks (a minute when it does not say), within ' +
    '--retries, and stderr says how long; a longer wait stops the run, saying when to run it again. Exit 9 when any delivery still fails. A disabled hook is refused: a successful ' +
    '`hooks test` re-enables it. Needs the Maintainer role.',
  exits: { 5: 'none failed, but an event ID given is not a delivery of the webhook', 9: 'some deliveries still failed' },
  examples: [
    'forgectl hooks resend 1 --project acme/api --failed --since 24h',
    'forgectl hooks resend 1 --project acme/api 1',
  ],
  args: [hookIdArg, { spec: '[events...]', description: 'the IDs of the deliveries to send again (from the webhook\'s events)' }],
  options: [
    projectOption,
    { flags: '--failed', description: 'resend every delivery of the last 7 days that never succeeded' },
    { flags: '--since <when>', description: 'with --failed: only events newer than this (24h, 2d, or a date-time)' },
  ],
  columns: ['event_id', 'created_at', 'trigger', 'response_status', 'result'],
  async run(opts, ctx) {
    const id = hookIdOf(opts.id);
    const ids = opts.events.map((text) => parseInteger('event id', 1)(text));
    if (!ids.length && !opts.failed) throw new UsageError('name the events to resend, or pass --failed', 'see them with: forgectl hooks events ID --status failed');
    if (ids.length && opts.failed) throw new UsageError('give event IDs or --failed, not both');
    if (opts.since && !opts.failed) throw new UsageError('--since goes with --failed');
    if (opts.since) parseSince(opts.since, ctx.now());
    const route = { project: ctx.project(opts.project), hook_id: id };

    const hook = await ctx.api.call<Hook>(hooks.routes.get, route);
    if (hook.alert_status !== 'executable') {
      throw new CliError(
        `webhook ${id} is ${hookStatus(hook)}: the service does not deliver to it, resends included`,
        ExitCode.rejected,
        `a successful test re-enables it: forgectl hooks test ${id} --project ${route.project}`,
      );
    }
    const targets = opts.failed ? await failedDeliveries(ctx, route, opts.since) : await namedDeliveries(ctx, route, ids);
    if (!targets.length) {
      ctx.io.note(`no failed deliveries of webhook ${id} to resend`);
      return [];
    }
    const outcome = (event: (typeof targets)[number], result: Outcome['result'], status: Outcome['response_status'] = null, error?: string): Outcome => ({
      event_id: event.id,
      created_at: event.created_at ?? null,
      trigger: event.trigger ?? null,
      response_status: status,
      result,
      ...(error ? { error } : {}),
    });
    if (ctx.globals.dryRun) {
      ctx.io.note(`would resend ${plural(targets.length, 'delivery', 'deliveries')} of webhook ${id}, ${RESENDS_PER_MINUTE} a minute`);
      return targets.map((event) => outcome(event, 'would resend', event.response_status ?? null));
    }

    const pacer = new Pacer(RESENDS_PER_MINUTE, WINDOW_MS, () => ctx.now().getTime(), (ms) => ctx.sleep(ms));
    const results: Outcome[] = [];
    let stopped: string | undefined;
    for (const event of targets) {
      // Interrupted now (Ctrl-C while waiting for the limit), the command says what is left.
      const left = targets.slice(results.length).map((e) => e.id);
      ctx.io.state.interruptNote = `${results.length} of ${targets.length} deliveries resent; not yet ${pluralNoun(left.length, 'event')} ${left.join(', ')}${opts.failed ? ' (run it again: those delivered are skipped)' : ''}`;
      if (stopped) {
        results.push(outcome(event, 'not sent', null, stopped));
        continue;
      }
      const answer = await resendOne(ctx, pacer, { ...route, hook_event_id: event.id }, `${results.length} of ${targets.length} done`);
      if (!(answer instanceof ApiError)) {
        const ok = answer.response_status >= 200 && answer.response_status < 300;
        results.push(outcome(event, ok ? 'delivered' : 'failed', answer.response_status));
      } else if (answer.status === 404) {
        results.push(outcome(event, 'not found', null, `webhook ${id} has no delivery ${event.id} (the service keeps 7 days of them)`));
      } else {
        // A wait longer than forgectl waits: the rest would be refused too. The error says when to run it again.
        if (answer.status === 429 && (answer.serverWaitMs ?? 0) > MAX_WAIT_MS) stopped = `${answer.message}; ${answer.hint}`;
        if (answer.status === 422 && /disabled/i.test(answer.message)) stopped = `webhook ${id} was disabled after failures (forgectl hooks test ${id} re-enables it)`;
        results.push(outcome(event, stopped ? 'not sent' : 'failed', null, answer.message));
      }
    }
    ctx.io.state.interruptNote = undefined;
    return withProblems(results, id, route.project, stopped);
  },
});

type Target = Pick<HookEvent, 'id'> & Partial<HookEvent>;

/**
 * One delivery sent again, paced to the service's limit. The request is sent once (a 429 too comes back here): a 429
 * is waited out by the pacer as long as the service asks (a whole window when it does not say), saying so, within
 * --retries; the service's refusal is returned as it is.
 */
async function resendOne(ctx: Context, pacer: Pacer, route: { project: string; hook_id: number; hook_event_id: number }, done: string): Promise<{ response_status: number } | ApiError> {
  const { retries } = ctx.connection();
  let refusal: string | undefined;
  for (let attempt = 0; ; attempt++) {
    await pacer.take((ms) => ctx.io.note(`waiting ${Math.ceil(ms / 1000)}s: ${refusal ?? `the service allows ${RESENDS_PER_MINUTE} resends a minute per webhook`} (${done})`));
    try {
      return await ctx.api.call<{ response_status: number }>(hooks.routes.resend, route, { retry: 'caller' });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status !== 429 || attempt >= retries || (error.serverWaitMs ?? 0) > MAX_WAIT_MS) return error;
      pacer.refused(error.serverWaitMs ?? WINDOW_MS);
      const asked = error.serverWaitMs === undefined ? 'without saying how long: a whole minute, the window of its limit' : 'asking for this wait';
      refusal = `the service answered 429 (too many requests) ${asked}; then attempt ${attempt + 2} of ${retries + 1}`;
    }
  }
}

/** Every event of the window, failed or not: a later successful resend of the same delivery rules it out. */
async function failedDeliveries(ctx: Context, route: HookRoute, since: string | undefined): Promise<Target[]> {
  return stillFailed(await hookEvents(ctx, route, { since }, { all: true }).toArray());
}

/**
 * The events named, in the order given, with their time and trigger from the hook's recorded events (read until all
 * are found); an id the hook has no record of is still sent, and the service's 404 says it is not found.
 */
async function namedDeliveries(ctx: Context, route: HookRoute, ids: number[]): Promise<Target[]> {
  const found = new Map<number, HookEvent>();
  const wanted = new Set(ids);
  for await (const event of hookEvents(ctx, route, {}, { all: true })) {
    if (wanted.has(event.id)) found.set(event.id, event);
    if (found.size === wanted.size) break;
  }
  return ids.map((id) => found.get(id) ?? { id });
}

/** The results, with the exit and the line that say what went wrong: 9 for failed deliveries, 5 for event ids the hook does not have. */
function withProblems(results: Outcome[], id: number, project: string, stopped: string | undefined): Outcome[] | ResultWithExit {
  const missing = results.filter((r) => r.result === 'not found').map((r) => r.event_id);
  const failures = results.filter((r) => r.result !== 'delivered' && r.result !== 'not found').length;
  if (!failures && !missing.length) return results;
  const hint = stopped ? `; ${stopped}` : '';
  const problems = [
    ...(failures ? [`${failures} of ${results.length} deliveries still failed${hint}`] : []),
    // A typed event id that is not the hook's (or older than 7 days) is not a failed delivery: say so, and where the ids are.
    ...(missing.length ? [`webhook ${id} has no ${pluralNoun(missing.length, 'delivery', 'deliveries')} ${missing.join(', ')}: forgectl hooks events ${id} --project ${project} lists those of the last 7 days`] : []),
  ];
  return new ResultWithExit(results, failures ? ExitCode.attention : ExitCode.notFound, problems.join('; '));
}
