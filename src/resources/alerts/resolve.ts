import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { parseDateTime } from '../../parse.js';
import { connectionOptions, prometheusBody, readPayload, sendAlert, type ConnectionOpts, type JsonObject } from './shared.js';

interface Options extends ConnectionOpts {
  fingerprint?: string;
  endTime?: string;
  title?: string;
  startTime?: string;
}

/** The metrics body with every item resolved; items without an end get the resolve time. */
function resolvedMetrics(body: JsonObject, endsAt: string): JsonObject {
  const items = Array.isArray(body.alerts) ? body.alerts : [];
  return {
    ...body,
    status: 'resolved',
    alerts: items.map((item) => {
      const record = (item && typeof item === 'object' && !Array.isArray(item) ? item : {}) as JsonObject;
      const ended = typeof record.endsAt === 'string' && !record.endsAt.startsWith('0001-') ? record.endsAt : endsAt;
      return { ...record, status: 'resolved', endsAt: ended };
    }),
  };
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Resolves an open alert. Generic format: sends the end time for --fingerprint (or for the alert in --payload,',
    'whose fingerprint the service computes from the payload itself). Metrics format: sends `status: resolved` for the',
    'alert with the same --title and --start-time (the service matches start time, title and query), or for every item',
    'of --payload. Exit 6 when no open alert matched.',
  ].join(' '),
  examples: [
    'forgectl alerts resolve --url https://git.example.com/acme/api/alerts/notify.json --key-file ~/.alert-key --fingerprint queue-42',
    'forgectl alerts resolve --url "$URL" --key-file k --payload alert.json --end-time 2026-03-01T10:00:00Z',
    'forgectl alerts resolve --url "$PROM_URL" --key-file prometheus.key --format prometheus --title HighLatency --start-time 2026-03-01T09:00:00Z',
  ],
  options: [
    ...connectionOptions,
    { flags: '--fingerprint <value>', description: 'the fingerprint the alert was sent with (generic format)' },
    { flags: '--end-time <datetime>', description: 'when it ended, ISO 8601 (default: now)', parse: parseDateTime('--end-time') },
    { flags: '--title <text>', description: 'metrics format: the alert\'s title' },
    { flags: '--start-time <datetime>', description: 'metrics format: the alert\'s start time, exactly as sent', parse: parseDateTime('--start-time') },
  ],
  columns: ['iid', 'title'],
  async run(opts, ctx) {
    const endTime = opts.endTime ?? ctx.now().toISOString();
    let body: JsonObject;
    if (opts.format === 'prometheus') {
      if (opts.fingerprint) throw new UsageError('--fingerprint applies to the generic format; metrics alerts are matched by --title and --start-time');
      if (opts.payload !== undefined) {
        body = resolvedMetrics(await readPayload(ctx, opts.payload), endTime);
      } else {
        if (!opts.title || !opts.startTime) throw new UsageError('--format prometheus needs --title and --start-time of the alert (or --payload)');
        const item = { status: 'resolved', labels: { alertname: opts.title }, annotations: { title: opts.title }, startsAt: opts.startTime, endsAt: endTime, generatorURL: '' };
        body = prometheusBody([item], 'resolved');
      }
    } else {
      if (opts.title || opts.startTime) throw new UsageError('--title and --start-time identify metrics alerts; the generic format resolves by --fingerprint or --payload');
      if (opts.fingerprint === undefined && opts.payload === undefined) throw new UsageError('give --fingerprint (or the --payload the alert was sent with)');
      const base = opts.payload !== undefined ? await readPayload(ctx, opts.payload) : {};
      body = { ...base, ...(opts.fingerprint !== undefined ? { fingerprint: opts.fingerprint } : {}), end_time: endTime };
    }
    const resolved = await sendAlert(ctx, opts, body);
    // The metrics endpoint answers 200 even when nothing matched; the generic one answers 400.
    if (!resolved.length) throw new CliError('no open alert matched', ExitCode.rejected, 'check --title and --start-time: they must be exactly those the alert was sent with');
    return resolved;
  },
});
