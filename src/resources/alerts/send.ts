import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseDateTime, parseKeyValue, parseList } from '../../parse.js';
import { assignField, type Json } from '../../json-fields.js';
import { connectionOptions, parseSeverity, prometheusBody, readPayload, sendAlert, severityFor, type ConnectionOpts, type JsonObject } from './shared.js';

interface Options extends ConnectionOpts {
  title?: string;
  description?: string;
  severity?: string;
  service?: string;
  monitoringTool?: string;
  hosts?: string[];
  fingerprint?: string;
  startTime?: string;
  environment?: string;
  field?: Array<[string, string]>;
}

/** Only the flags that were given, so a prepared payload keeps its own values. */
function defined(record: Record<string, Json | undefined>): JsonObject {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as JsonObject;
}

function genericBody(opts: Options, base: JsonObject): JsonObject {
  const body: JsonObject = { ...base };
  for (const [key, value] of opts.field ?? []) assignField(body, key, value);
  const hosts = opts.hosts?.length === 1 ? opts.hosts[0] : opts.hosts;
  return {
    ...body,
    ...defined({
      title: opts.title,
      description: opts.description,
      severity: severityFor(opts.severity, 'generic'),
      service: opts.service,
      monitoring_tool: opts.monitoringTool,
      hosts,
      fingerprint: opts.fingerprint,
      start_time: opts.startTime,
      service_environment_name: opts.environment,
    }),
  };
}

/** One alert item: title and start are required by the service; severity and environment are labels. */
function metricsItem(opts: Options, startsAt: string): JsonObject {
  if (!opts.title) throw new UsageError('--format prometheus needs --title (the service requires a title per alert)');
  if (opts.fingerprint) throw new UsageError('--fingerprint applies to the generic format; metrics alerts are grouped by start time, title and query');
  const annotations: JsonObject = defined({ title: opts.title, description: opts.description, service: opts.service, monitoring_tool: opts.monitoringTool, hosts: opts.hosts?.join(',') });
  for (const [key, value] of opts.field ?? []) assignField(annotations, key, value);
  return {
    status: 'firing',
    labels: defined({ alertname: opts.title, severity: severityFor(opts.severity, 'prometheus'), service_environment_name: opts.environment }),
    annotations,
    startsAt,
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: '',
  };
}

export default defineCommand<Options>({
  effect: 'write',
  description: [
    'Sends an alert to an alert-intake URL with the integration\'s authorization key (from --key-file or',
    'FORGECTL_ALERT_KEY; the profile\'s token is never sent). Severities are checked: critical, high, medium, low, info,',
    'unknown, or a metrics label (p1, s2, warning …) mapped as the service maps it. --field key=value adds extra',
    'properties (a[b]=c nests). Prints the alerts created or grouped: [{iid, title}]. Payloads over 1 MB are refused.',
  ].join(' '),
  examples: [
    'forgectl alerts send --url https://git.example.com/acme/api/alerts/notify.json --key-file ~/.alert-key --title "disk full" --severity high --hosts db1',
    'FORGECTL_ALERT_KEY="$(cat ~/.alert-key)" forgectl alerts send --url "$URL" --title "queue stuck" --fingerprint queue-42 --field runbook=https://wiki/q -o json',
    'forgectl alerts send --url https://git.example.com/acme/api/prometheus/alerts/notify.json --key-file prometheus.key --format prometheus --title HighLatency --severity p2',
    'forgectl alerts send --url "$URL" --key-file k --payload alert.json',
  ],
  options: [
    ...connectionOptions,
    { flags: '--title <text>', description: 'alert title (the service defaults to "New: Alert")' },
    { flags: '--description <text>', description: 'alert description' },
    { flags: '--severity <level>', description: 'critical, high, medium, low, info, unknown (default: critical)', parse: parseSeverity },
    { flags: '--service <name>', description: 'affected service' },
    { flags: '--monitoring-tool <name>', description: 'the tool that raised the alert' },
    { flags: '--hosts <a,b>', description: 'affected hosts (comma list, repeatable)', parse: parseList },
    { flags: '--fingerprint <value>', description: 'groups repeated alerts and finds the one to resolve (generic format)' },
    { flags: '--start-time <datetime>', description: 'when it started, ISO 8601 (default: now)', parse: parseDateTime('--start-time') },
    { flags: '--environment <name>', description: 'environment name (service_environment_name)' },
    { flags: '--field <key=value>', description: 'an extra property (repeatable; a[b]=c nests)', parse: parseKeyValue('--field') },
  ],
  columns: ['iid', 'title'],
  async run(opts, ctx) {
    const base = opts.payload !== undefined ? await readPayload(ctx, opts.payload) : {};
    let body: JsonObject;
    if (opts.format === 'prometheus') {
      if (opts.payload !== undefined) {
        const flagged = [opts.title, opts.description, opts.severity, opts.service, opts.monitoringTool, opts.hosts, opts.fingerprint, opts.startTime, opts.environment, opts.field];
        if (flagged.some((v) => v !== undefined)) throw new UsageError('with --format prometheus, --payload is the whole webhook body: alert flags cannot be added to it');
        body = base;
      } else {
        const startsAt = opts.startTime ?? ctx.now().toISOString();
        body = prometheusBody([metricsItem(opts, startsAt)], 'firing');
        if (!opts.startTime) ctx.io.note(`to resolve it later: forgectl alerts resolve --format prometheus --title ${JSON.stringify(opts.title)} --start-time ${startsAt} --url …`);
      }
    } else {
      body = genericBody(opts, base);
    }
    return sendAlert(ctx, opts, body);
  },
});
