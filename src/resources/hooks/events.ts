import { redactRecord } from '../../http/redact.js';
import { HOOK_EVENTS, hooks, type HookEvent } from './resource.js';
import type { PageOptions } from '../../api/paginate.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseMoment } from '../../parse.js';
import { UsageError } from '../../errors.js';
import { EVENT_NAMES, eventFlag, hookIdArg, hookIdOf } from './shared.js';

export const isSuccess = (event: Pick<HookEvent, 'response_status'>): boolean => /^2\d\d$/.test(event.response_status);

/** --status: what the service filters (ok, client_failure, server_failure, a code) or failed (filtered here). */
export function parseStatus(value: string): string {
  const v = value.trim().toLowerCase();
  if (['ok', 'successful', 'failed', 'client_failure', 'server_failure'].includes(v) || /^[1-5]\d\d$/.test(v)) return v;
  throw new UsageError(`--status must be ok, failed, client_failure, server_failure or an HTTP status such as 500; got "${value}"`);
}

/** --since 24h | 7d | 2026-03-01T00:00:00Z → the ISO time events must not be older than. */
export const parseSince = (value: string, now: Date): string => parseMoment('--since', value, now);

export interface EventFilters {
  status?: string;
  trigger?: string;
  since?: string;
}

export interface HookRoute {
  project: string;
  hook_id: number;
}

/** The events of a hook, newest first, with the filters the service has sent along and the others applied here. */
export function hookEvents(ctx: Context, route: HookRoute, filters: EventFilters, paging: PageOptions = ctx.paging) {
  const status = filters.status === 'ok' ? 'successful' : filters.status === 'failed' ? undefined : filters.status;
  // A delivery's URL and request headers may carry the hook's credentials: masked as every record that holds one.
  let list = ctx.api.list<HookEvent>(hooks.routes.events, { ...route, status }, paging).map(redactRecord);
  const trigger = filters.trigger ? HOOK_EVENTS[eventFlag('--trigger', filters.trigger)].trigger : undefined;
  const since = filters.since ? parseSince(filters.since, ctx.now()) : undefined;
  if (filters.status === 'failed') list = list.filter((event) => !isSuccess(event));
  if (trigger) list = list.filter((event) => event.trigger === trigger);
  if (since) list = list.filter((event) => event.created_at >= since);
  return list;
}

export default defineCommand<{ project?: string; id: string } & EventFilters>({
  effect: 'read',
  description:
    'Deliveries of the last 7 days (the service keeps no more), newest first. --status failed means anything but a 2xx answer, ' +
    'connection errors included. Needs the Maintainer role.',
  examples: [
    'forgectl hooks events 1 --project acme/api --status failed --since 24h',
    'forgectl hooks events 1 --project acme/api --trigger push --limit 1 -o json',
  ],
  args: [hookIdArg],
  options: [
    projectOption,
    { flags: '--status <status>', description: 'ok, failed, client_failure, server_failure or an HTTP status', parse: parseStatus },
    { flags: '--trigger <event>', description: `only this event kind (${EVENT_NAMES.join(', ')})` },
    { flags: '--since <when>', description: 'only newer events: a duration such as 24h or 2d, or a date-time' },
  ],
  list: true,
  columns: ['id', 'created_at', 'trigger', 'response_status', 'execution_duration', 'url'],
  async run(opts, ctx) {
    if (opts.trigger) eventFlag('--trigger', opts.trigger);
    if (opts.since) parseSince(opts.since, ctx.now());
    return hookEvents(ctx, { project: ctx.project(opts.project), hook_id: hookIdOf(opts.id) }, opts);
  },
});
