import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { findProject } from '../../sandbox/auth.js';
import type { Db } from '../../sandbox/db.js';
import { header, HttpError, ok, type SandboxRequest } from '../../sandbox/http.js';
import { projects, type Project, type AlertIntegration, type Alert, alertIntegrations, alertTable } from '../../sandbox/model.js';
import { routePattern, type Router } from '../../sandbox/router.js';
import type { SandboxModule } from '../../sandbox/module.js';
import { presentRecord } from '../../sandbox/records.js';
import { alerts as declared, GENERIC_SEVERITIES, MAX_ALERT_PAYLOAD_BYTES, PROMETHEUS_KEYS, SEVERITY_LABELS, type Severity } from './resource.js';
import { projectById } from '../../sandbox/hierarchy.js';

/**
 * Alert intake (document 3 "Alert intake"; api-facts §1.18): WEB routes outside /api/v4, authenticated by the
 * integration's key (Bearer, or Basic with the key as password), answering 200 `[{iid,title}]` or an empty body
 * with 400 (over 1 MB, or nothing persisted), 401 (wrong key), 403 (integration inactive or unknown), 404
 * (unknown project) and 422 (a metrics payload without the required attributes).
 */

/** Alerts taken from one Prometheus request; the rest are dropped. */
const MAX_PROMETHEUS_ALERTS = 100;
/** Groups nest up to 20 levels, plus the project itself. */
const MAX_PATH_DEPTH = 21;

/** Alert endpoints answer errors with `head <status>`: no body. */
const empty = (status: number): HttpError => new HttpError(status, undefined);

function presentedKey(req: SandboxRequest): string | undefined {
  const value = header(req, 'authorization');
  if (!value) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(value);
  if (bearer) return bearer[1].trim();
  const basic = /^Basic\s+(.+)$/i.exec(value);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1].trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // The username is ignored (documented as empty); the password is the key.
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}

function sameSecret(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

function payloadSize(req: SandboxRequest): number {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > 0 ? declared : Buffer.byteLength(JSON.stringify(req.body ?? ''));
}

/** Route parameter names may hold only letters and underscores: part_a, part_b … */
const segmentName = (index: number): string => `part_${String.fromCharCode(97 + index)}`;

function projectOf(req: SandboxRequest, depth: number): Project {
  const path = Array.from({ length: depth }, (_, i) => req.params[segmentName(i)]).join('/');
  try {
    return findProject(req.db, path);
  } catch {
    throw empty(404);
  }
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** JSON with sorted keys, so the same payload always gives the same fingerprint. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const present = (value: unknown): boolean => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && !value.length);
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);
const time = (value: unknown): string | undefined => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined);

/** One alert of an incoming payload: the fields it sets on the alert record. */
type Incoming = Pick<
  Alert,
  'title' | 'description' | 'severity' | 'started_at' | 'ended_at' | 'fingerprint' | 'service' | 'monitoring_tool' | 'hosts' | 'environment' | 'runbook' | 'payload'
> & {
  /** The alert resolves the open one with its fingerprint. */
  resolving: boolean;
};

/**
 * Creates, groups or resolves one alert (document 3 states table): an open alert with the same fingerprint counts
 * one more event or is resolved; a resolving payload without an open alert persists nothing; after a resolved
 * alert an identical payload opens a new one.
 */
function processAlert(req: SandboxRequest, project: Project, integration: AlertIntegration, incoming: Incoming): Alert | undefined {
  const now = req.now().toISOString();
  const open = incoming.fingerprint
    ? alertTable(req.db).find((a) => a.project_id === project.id && a.fingerprint === incoming.fingerprint && a.status !== 'resolved')
    : undefined;
  if (open) {
    if (incoming.resolving) {
      open.status = 'resolved';
      open.ended_at = incoming.ended_at ?? now;
    } else {
      open.events++;
    }
    open.updated_at = now;
    return open;
  }
  if (incoming.resolving) return undefined;
  const { resolving: _, ...fields } = incoming;
  const alert: Alert = {
    ...fields,
    id: req.db.nextId('alert_management_alerts'),
    iid: Math.max(0, ...alertTable(req.db).filter((a) => a.project_id === project.id).map((a) => a.iid)) + 1,
    project_id: project.id,
    integration_id: integration.id,
    status: 'triggered',
    ended_at: null,
    events: 1,
    created_at: now,
    updated_at: now,
  };
  alertTable(req.db).push(alert);
  return alert;
}

function genericAlert(req: SandboxRequest, payload: Record<string, unknown>): Incoming {
  const severity = String(payload.severity ?? '').toLowerCase() as Severity;
  const endedAt = time(payload.end_time);
  let fingerprint: string | null = null;
  if (present(payload.fingerprint)) {
    fingerprint = sha1(Array.isArray(payload.fingerprint) ? payload.fingerprint.flat(Infinity).map(String).join('') : String(payload.fingerprint));
  } else if (req.tier !== 'free') {
    // generic_alert_fingerprinting (premium tiers): the payload itself, without the times and hosts.
    const { start_time: _s, end_time: _e, hosts: _h, ...rest } = payload;
    if (Object.values(rest).some(present)) fingerprint = sha1(stableJson(rest));
  }
  const hosts = payload.hosts;
  return {
    title: text(payload.title) ?? 'New: Alert',
    description: text(payload.description),
    severity: (GENERIC_SEVERITIES as readonly string[]).includes(severity) ? severity : 'critical',
    started_at: time(payload.start_time) ?? req.now().toISOString(),
    resolving: endedAt !== undefined,
    ended_at: endedAt ?? null,
    fingerprint,
    service: text(payload.service),
    monitoring_tool: text(payload.monitoring_tool),
    hosts: Array.isArray(hosts) ? hosts.map(String) : present(hosts) ? [String(hosts)] : [],
    environment: text(payload.service_environment_name),
    runbook: null,
    payload,
  };
}

function prometheusAlert(item: Record<string, unknown>): Incoming | undefined {
  const labels = (item.labels ?? {}) as Record<string, unknown>;
  const annotations = (item.annotations ?? {}) as Record<string, unknown>;
  const title = text(annotations.title) ?? text(annotations.summary) ?? text(labels.alertname);
  const startsAt = typeof item.startsAt === 'string' ? item.startsAt : undefined;
  if (!title || !startsAt || !time(startsAt)) return undefined;
  let query = '';
  try {
    query = new URL(String(item.generatorURL ?? '')).searchParams.get('g0.expr') ?? '';
  } catch {
    query = '';
  }
  const resolving = item.status === 'resolved';
  return {
    title,
    description: text(annotations.description),
    severity: SEVERITY_LABELS[String(labels.severity ?? '').toLowerCase()] ?? 'critical',
    started_at: time(startsAt)!,
    resolving,
    ended_at: resolving ? (time(item.endsAt) ?? null) : null,
    // The service's own fingerprint for metrics alerts: start time, title and query.
    fingerprint: sha1([startsAt, title, query].join('/')),
    service: null,
    monitoring_tool: 'Prometheus',
    hosts: [],
    environment: text(labels.service_environment_name),
    runbook: text(annotations.runbook),
    payload: item,
  };
}

function handle(req: SandboxRequest, depth: number, identifier: string, expected?: AlertIntegration['type']): ReturnType<typeof ok> {
  const project = projectOf(req, depth);
  if (payloadSize(req) > MAX_ALERT_PAYLOAD_BYTES) throw empty(400);
  const integration = alertIntegrations(req.db).find((i) => i.project_id === project.id && i.endpoint_identifier === identifier && (!expected || i.type === expected));
  const multiple = !identifier.startsWith('legacy');
  // Several HTTP endpoints per project need Premium: on Free only the legacy ones answer.
  if (!integration || !integration.active || (multiple && req.tier === 'free')) throw empty(403);
  const key = presentedKey(req);
  if (!key || !sameSecret(key, integration.token)) throw empty(401);
  const body = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw empty(400);
  const payload = body as Record<string, unknown>;

  let touched: Alert[];
  if (integration.type === 'prometheus') {
    if (!PROMETHEUS_KEYS.every((k) => k in payload) || String(payload.version) !== '4' || !Array.isArray(payload.alerts)) throw empty(422);
    touched = (payload.alerts as unknown[])
      .slice(0, MAX_PROMETHEUS_ALERTS)
      .map((item) => (item && typeof item === 'object' ? prometheusAlert(item as Record<string, unknown>) : undefined))
      .map((incoming) => (incoming ? processAlert(req, project, integration, incoming) : undefined))
      .filter((alert): alert is Alert => alert !== undefined);
  } else {
    const alert = processAlert(req, project, integration, genericAlert(req, payload));
    if (!alert) throw empty(400);
    touched = [alert];
  }
  return ok(touched.map((alert) => presentRecord(declared, alert)));
}

/** A declared intake route at every nesting depth: its `{project}` is the project's full path, slashes kept. */
function intakeRoutes(web: Router, route: string, handler: (req: SandboxRequest, depth: number) => ReturnType<typeof ok>): void {
  for (let depth = 2; depth <= MAX_PATH_DEPTH; depth++) {
    const segments = Array.from({ length: depth }, (_, i) => `{${segmentName(i)}}`).join('/');
    web.route(route.replace('{project}', segments), (req) => handler(req, depth), { auth: 'none' });
  }
}

/** The URL of a declared intake route of a project: its full path with its slashes, and the other parameters. */
const intakeUrl = (rootUrl: string, project: Project, route: string, params: Record<string, string> = {}): string =>
  rootUrl + routePattern(route)[1].replace(':project', project.path_with_namespace).replace(/:([a-z_]+)/g, (_, name: string) => params[name]);

function addIntegration(db: Db, project: Project, fields: Omit<AlertIntegration, 'id' | 'project_id' | 'token'>): AlertIntegration {
  const integration = { id: db.nextId('alert_integrations'), project_id: project.id, token: randomBytes(16).toString('hex'), ...fields };
  alertIntegrations(db).push(integration);
  return integration;
}

export const alerts: SandboxModule = {
  routes(_api, web) {
    const { notifyPrometheus, notifyEndpoint, notify } = declared.routes;
    // Prometheus first: `acme/api/prometheus/alerts/notify.json` would otherwise read as project acme/api/prometheus.
    intakeRoutes(web, notifyPrometheus, (req, depth) => handle(req, depth, 'legacy-prometheus', 'prometheus'));
    intakeRoutes(web, notifyEndpoint, (req, depth) => {
      if (!/^[A-Za-z0-9]+$/.test(req.params.endpoint_identifier)) throw empty(404);
      return handle(req, depth, req.params.endpoint_identifier);
    });
    intakeRoutes(web, notify, (req, depth) => handle(req, depth, 'legacy', 'http'));
  },
  seed(db) {
    const project = projects(db).find((p) => p.path_with_namespace === 'acme/api');
    if (!project) return;
    addIntegration(db, project, { name: 'HTTP endpoint', type: 'http', active: true, endpoint_identifier: 'legacy' });
    addIntegration(db, project, { name: 'Prometheus', type: 'prometheus', active: true, endpoint_identifier: 'legacy-prometheus' });
    addIntegration(db, project, { name: 'Ops monitor', type: 'http', active: true, endpoint_identifier: randomBytes(8).toString('hex') });
    addIntegration(db, project, { name: 'Old pager', type: 'http', active: false, endpoint_identifier: randomBytes(8).toString('hex') });
  },
  env({ rootUrl, db }): Record<string, string> {
    const project = projects(db).find((p) => p.path_with_namespace === 'acme/api');
    const find = (identifier: string) => alertIntegrations(db).find((i) => i.project_id === project?.id && i.endpoint_identifier === identifier);
    const generic = find('legacy');
    const prometheus = find('legacy-prometheus');
    if (!project || !generic || !prometheus) return {};
    return {
      FORGECTL_SANDBOX_ALERT_URL: integrationUrl(rootUrl, db, generic),
      FORGECTL_SANDBOX_ALERT_KEY: generic.token,
      FORGECTL_SANDBOX_PROMETHEUS_URL: integrationUrl(rootUrl, db, prometheus),
      FORGECTL_SANDBOX_PROMETHEUS_KEY: prometheus.token,
    };
  },
};

/** The URL of an HTTP endpoint integration (`alerts/notify/<name-slug>/<identifier>.json`), for tests and docs. */
export function integrationUrl(rootUrl: string, db: Db, integration: AlertIntegration): string {
  const project = projectById(db, integration.project_id)!;
  if (integration.endpoint_identifier === 'legacy') return intakeUrl(rootUrl, project, declared.routes.notify);
  if (integration.endpoint_identifier === 'legacy-prometheus') return intakeUrl(rootUrl, project, declared.routes.notifyPrometheus);
  const name = integration.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'http-endpoint';
  return intakeUrl(rootUrl, project, declared.routes.notifyEndpoint, { name, endpoint_identifier: integration.endpoint_identifier });
}
