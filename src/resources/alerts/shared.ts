import { readFileSync } from 'node:fs';
import type { Api } from '../../api/client.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { ApiError, ConfigError, UsageError } from '../../errors.js';
import { parseChoice } from '../../parse.js';
import { isLoopbackHost, selectedProfileName } from '../../config/resolve.js';
import { alerts, GENERIC_SEVERITIES, MAX_ALERT_PAYLOAD_BYTES, PROMETHEUS_KEYS, SEVERITY_LABELS } from './resource.js';
import type { Json } from '../../json-fields.js';

/**
 * Alert intake (document 3 "Alert intake"; api-facts §1.18). The URL is a WEB route of the instance (not under
 * /api/v4) and is used as given; it authenticates with the integration's key, never with the profile's token.
 */

/** --severity: one of the service's severities or a metrics label it maps (`warning` → low); exit 2 otherwise. */
export function parseSeverity(value: string): string {
  const v = value.trim().toLowerCase();
  if (v === 'unknown' || v in SEVERITY_LABELS) return v;
  throw new UsageError(`--severity must be one of ${GENERIC_SEVERITIES.join(', ')} (or a metrics label such as p2 or warning); got "${value}"`);
}

/** The severity to send: the canonical name, so the service never falls back to critical by surprise. */
export function severityFor(value: string | undefined, format: AlertFormat): string | undefined {
  if (value === undefined) return undefined;
  if (value === 'unknown') {
    if (format === 'prometheus') throw new UsageError('the metrics endpoint has no "unknown" severity (it would become critical)');
    return value;
  }
  return SEVERITY_LABELS[value];
}

export type AlertFormat = 'generic' | 'prometheus';
export type JsonObject = { [key: string]: Json };

export const connectionOptions: OptionDef[] = [
  { flags: '--url <alert-url>', description: 'the integration\'s URL, used as given (e.g. https://git.example.com/ops/api/alerts/notify.json)', required: true },
  { flags: '--key-file <path>', description: 'file holding the authorization key (default: $FORGECTL_ALERT_KEY)', localFile: true },
  { flags: '--auth <scheme>', description: 'bearer, or basic (empty user, the key as password)', parse: parseChoice('--auth', ['bearer', 'basic'] as const), default: 'bearer' },
  { flags: '--format <format>', description: 'generic, or prometheus (the metrics-alerting webhook body)', parse: parseChoice('--format', ['generic', 'prometheus'] as const), default: 'generic' },
  { flags: '--payload <file>', description: 'a prepared JSON body from a file, or - for stdin (flags are merged into it)', localFile: true },
];

export interface ConnectionOpts {
  url: string;
  keyFile?: string;
  auth: 'bearer' | 'basic';
  format: AlertFormat;
  payload?: string;
}

/** The key from --key-file or FORGECTL_ALERT_KEY: never from argv, where `ps` and shell history would show it. */
export function readKey(ctx: Context, keyFile: string | undefined): string {
  let key: string | undefined;
  if (keyFile !== undefined) {
    try {
      key = readFileSync(keyFile, 'utf8').trim();
    } catch (error) {
      throw new UsageError(`cannot read --key-file ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (!key) throw new UsageError(`--key-file ${keyFile} is empty`);
  } else {
    key = ctx.env.FORGECTL_ALERT_KEY?.trim();
  }
  if (!key) throw new ConfigError('no alert authorization key', 'pass --key-file PATH or set FORGECTL_ALERT_KEY');
  return key;
}

export function parseAlertUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url must be the integration's http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`--url must be http(s), got "${url.protocol}"`);
  if (url.username || url.password) {
    throw new UsageError('--url must not carry credentials (servers log URLs)', 'put the key in a file (--key-file) or FORGECTL_ALERT_KEY');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(`refusing to send the alert key over plain http to ${url.host}`, 'use the https URL of the integration');
  }
  return url;
}

/** TLS settings of the selected profile, if one is readable: the alert URL is often on the same instance. */
function profileTls(ctx: Context): { caFile?: string; insecure?: boolean; timeout?: number; retries?: number } {
  try {
    const config = ctx.readConfig();
    const name = selectedProfileName(ctx.globals, ctx.env, config);
    const profile = name ? config.profiles[name] : undefined;
    return { caFile: profile?.ca_file, insecure: profile?.insecure, timeout: profile?.timeout, retries: profile?.retries };
  } catch {
    return {};
  }
}

/** A client for the alert URL's origin that carries no token: works with no profile configured at all. */
export function alertApi(ctx: Context, url: URL): Api {
  const profile = profileTls(ctx);
  const timeout = ctx.globals.timeout ?? profile.timeout ?? 30;
  return ctx.apiFor(
    {
      baseUrl: `${url.origin}/api/v4`,
      rootUrl: url.origin,
      token: '',
      tokenType: 'private',
      tokenSource: 'environment',
      caFile: ctx.globals.caFile ?? profile.caFile,
      insecure: Boolean(ctx.globals.insecure ?? profile.insecure),
      timeoutMs: timeout * 1000,
      retries: ctx.globals.retries ?? profile.retries ?? 3,
    },
    { dryRun: Boolean(ctx.globals.dryRun) },
  );
}

/** --payload FILE|-: a JSON object. */
export async function readPayload(ctx: Context, source: string): Promise<JsonObject> {
  let text: string;
  try {
    text = source === '-' ? await ctx.io.readStdin() : readFileSync(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --payload ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--payload ${source} is not valid JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--payload ${source} must hold a JSON object`);
  return parsed as JsonObject;
}

/** The metrics endpoint answers 422 to a body without these; say which are missing before sending. */
export function checkPrometheusBody(body: JsonObject): void {
  const missing = PROMETHEUS_KEYS.filter((k) => !(k in body));
  if (missing.length) throw new UsageError(`the metrics-alerting body lacks ${missing.join(', ')}`);
  if (!Array.isArray(body.alerts) || !body.alerts.length) throw new UsageError('the metrics-alerting body needs at least one item in "alerts"');
  if (String(body.version) !== '4') throw new UsageError(`the metrics-alerting body must have version "4", got ${JSON.stringify(body.version)}`);
}

/** A metrics-alerting webhook body (version 4) around the given items. */
export function prometheusBody(items: JsonObject[], status: 'firing' | 'resolved'): JsonObject {
  const first = items[0];
  const labels = (first.labels ?? {}) as JsonObject;
  return {
    version: '4',
    groupKey: `{}:{alertname=${JSON.stringify(String(labels.alertname ?? ''))}}`,
    status,
    receiver: 'forgectl',
    groupLabels: { alertname: labels.alertname ?? null },
    commonLabels: labels,
    commonAnnotations: (first.annotations ?? {}) as JsonObject,
    externalURL: '',
    truncatedAlerts: 0,
    alerts: items,
  };
}

const HINTS: Record<number, string> = {
  400: 'the endpoint refused the payload: over its size limit, or nothing open to resolve with that fingerprint',
  401: 'the authorization key was refused: check --key-file or FORGECTL_ALERT_KEY (and --auth)',
  403: 'the integration is inactive or does not exist (several HTTP endpoints per project need Premium)',
  404: 'no project at that URL: check the path in --url',
  422: 'the endpoint did not accept the body as a metrics-alerting webhook (version "4" and the required attributes)',
};

/** How the path of a declared intake route ends after the project's path: `/alerts/notify/[^/]+/[^/]+\.json$`. */
const intakePathEnd = (route: string): RegExp =>
  new RegExp(`/${route.split('{project}/')[1].replace(/\./g, '\\.').replace(/\{[a-z_]+\}/g, '[^/]+')}$`);

/** Sends the body with the key; refuses payloads over 1 MB before sending. Returns the service's [{iid,title}]. */
export async function sendAlert(ctx: Context, opts: ConnectionOpts, body: JsonObject): Promise<Array<{ iid: number; title: string }>> {
  const url = parseAlertUrl(opts.url);
  const size = Buffer.byteLength(JSON.stringify(body));
  if (size > MAX_ALERT_PAYLOAD_BYTES) {
    throw new UsageError(`the payload is ${size.toLocaleString('en-US')} bytes; alert endpoints accept at most 1 MB (${MAX_ALERT_PAYLOAD_BYTES.toLocaleString('en-US')} bytes)`);
  }
  if (opts.format === 'prometheus') checkPrometheusBody(body);
  if (opts.format === 'prometheus' && ![alerts.routes.notifyPrometheus, alerts.routes.notifyEndpoint].some((route) => intakePathEnd(route).test(url.pathname))) {
    ctx.io.warn('metrics bodies go to a .../prometheus/alerts/notify.json URL (or a Prometheus integration\'s own URL)');
  }
  const key = readKey(ctx, opts.keyFile);
  const authorization = opts.auth === 'basic' ? `Basic ${Buffer.from(`:${key}`).toString('base64')}` : `Bearer ${key}`;
  const api = alertApi(ctx, url);
  try {
    const response = await api.request<Array<{ iid: number; title: string }> | undefined>({ method: 'POST', path: url.toString(), body, headers: { Authorization: authorization }, auth: false });
    return Array.isArray(response.data) ? response.data : [];
  } catch (error) {
    if (error instanceof ApiError && HINTS[error.status]) {
      throw new ApiError(error.message, error.status, error.method, url.pathname, error.requestId, HINTS[error.status], error.body);
    }
    throw error;
  }
}
