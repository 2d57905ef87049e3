import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isLoopbackHost } from '../http/url.js';
import { HOOK_EVENTS, type Hook, type HookEventFlag } from '../resources/hooks/resource.js';
import type { Db } from './db.js';
import { SANDBOX_VERSION } from './http.js';
import { coversBranch } from './protection.js';
import { hookLogs, storedHooks, type HookLog, type Project, type StoredHook } from './model.js';

/**
 * The sandbox's webhook delivery engine: project hooks really POST to their receivers (loopback addresses only), each
 * delivery is recorded as an event, and failing hooks are disabled temporarily and then permanently with the
 * thresholds of the real service (docs/webhooks.md):
 *
 * - every failure (a 4xx or 5xx answer, a timeout, a connection error) adds one to `recent_failures`;
 * - from the 4th consecutive failure the hook is disabled for 1 minute × 2^(failures before it − 3), at most a day;
 * - the 40th consecutive failure disables it for good;
 * - any 2xx answer resets both; a test delivery runs even on a disabled hook, so a successful test re-enables it.
 *
 * Deliveries run after the request that caused them has been answered, as the service's background jobs do.
 */

const TEMPORARILY_DISABLED_FAILURE_THRESHOLD = 3;
const PERMANENTLY_DISABLED_FAILURE_THRESHOLD = 39;
const INITIAL_BACKOFF_MS = 60_000;
const MAX_BACKOFF_MS = 86_400_000;
/** Events older than this are not listed (and are pruned). */
export const EVENT_HISTORY_MS = 7 * 86_400_000;
const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BODY = 64 * 1024;
export const REDACTED = '[REDACTED]';

/** Why a hook is not delivering, from its failures and the clock. */
export function alertStatus(hook: StoredHook, now: Date): Hook['alert_status'] {
  const failures = hook.recent_failures ?? 0;
  if (failures > PERMANENTLY_DISABLED_FAILURE_THRESHOLD) return 'disabled';
  if (failures > TEMPORARILY_DISABLED_FAILURE_THRESHOLD && hook.disabled_until && hook.disabled_until >= now.toISOString()) return 'temporarily_disabled';
  return 'executable';
}

/** A failed delivery: one more failure, and from the 4th a growing time out. */
function backoff(hook: StoredHook, now: Date): void {
  const failures = hook.recent_failures ?? 0;
  const next = Math.min(failures + 1, PERMANENTLY_DISABLED_FAILURE_THRESHOLD + 1);
  hook.recent_failures = next;
  if (next > TEMPORARILY_DISABLED_FAILURE_THRESHOLD) {
    const wait = Math.min(MAX_BACKOFF_MS, Math.max(INITIAL_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** (failures - TEMPORARILY_DISABLED_FAILURE_THRESHOLD)));
    hook.disabled_until = new Date(now.getTime() + wait).toISOString();
  }
}

function enable(hook: StoredHook): void {
  hook.recent_failures = 0;
  hook.disabled_until = null;
}

/** What a delivery needs of the sandbox: its state, its address (X-Gitlab-Instance) and its clock. */
export interface HookEnv {
  db: Db;
  rootUrl: string;
  now(): Date;
}

export interface DeliveryResult {
  /** The receiver's status; undefined when no answer came (connection refused, timeout, not loopback). */
  status?: number;
  /** The receiver's body, or what went wrong. */
  message: string;
  log: HookLog;
}

/** The URL with its {variables} filled in (only the receiver ever sees the values). */
function interpolatedUrl(hook: StoredHook): string {
  const values = new Map(hook.url_variables.map((v) => [v.key, v.value]));
  return hook.url.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, key: string) => values.get(key) ?? whole);
}

/** `{{object_kind}}`, `{{project.name}}`: a custom template filled from the payload. */
function renderTemplate(template: string, payload: unknown): string {
  return template.replace(/\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g, (_whole, path: string) => {
    let value: unknown = payload;
    for (const key of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? JSON.stringify(value).slice(1, -1) : JSON.stringify(value);
  });
}

/**
 * A value that is an e-mail address and nothing else, by the pattern the service redacts recorded payloads with (the
 * HTML standard's): a host name after the @, so `git@host:group/project.git` (an SSH clone URL) is no address.
 */
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Email addresses in a recorded payload are shown as a redacted marker, as the service does; other values stay. */
function redactEmails(value: unknown): unknown {
  if (typeof value === 'string') return EMAIL.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map(redactEmails);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactEmails(v)]));
  return value;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
}

/** POSTs one payload and answers with the status and body; `undefined` status when no answer came. */
function post(url: URL, headers: Record<string, string>, body: string, verifyTls: boolean): Promise<{ status?: number; headers: Record<string, string>; body: string; error?: string }> {
  return new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, rejectUnauthorized: verifyTls, timeout: DELIVERY_TIMEOUT_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < MAX_RESPONSE_BODY) text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode, headers: flatHeaders(res.headers), body: text.slice(0, MAX_RESPONSE_BODY) }));
      res.on('error', (error) => resolve({ headers: {}, body: '', error: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('Net::ReadTimeout')));
    req.on('error', (error) => resolve({ headers: {}, body: '', error: error.message }));
    req.end(body);
  });
}

/** The request headers of a delivery, and the same as the event log shows them (the token and custom headers redacted). */
function deliveryHeaders(env: HookEnv, hook: StoredHook, event: HookEventFlag, idempotencyKey: string): { headers: Record<string, string>; shown: Record<string, string> } {
  const { header } = HOOK_EVENTS[event];
  hook.uuid ??= randomUUID();
  const eventUuid = randomUUID();
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': `GitLab/${SANDBOX_VERSION}`,
    'Idempotency-Key': idempotencyKey,
    'X-Gitlab-Event': header,
    'X-Gitlab-Webhook-UUID': hook.uuid,
    'X-Gitlab-Instance': env.rootUrl,
    'X-Gitlab-Event-UUID': eventUuid,
    // The spec's names for the same headers, so receivers written against either work.
    'X-Service-Event': header,
    'X-Service-Webhook-UUID': hook.uuid,
    'X-Service-Instance': env.rootUrl,
    'X-Service-Event-UUID': eventUuid,
  };
  const shown: Record<string, string> = { ...headers };
  if (hook.token) {
    headers['X-Gitlab-Token'] = headers['X-Service-Token'] = hook.token;
    shown['X-Gitlab-Token'] = shown['X-Service-Token'] = REDACTED;
  }
  for (const { key, value } of hook.custom_headers) {
    headers[key] = value;
    shown[key] = REDACTED;
  }
  return { headers, shown };
}

type Answer = Awaited<ReturnType<typeof post>>;

/** POSTs to the hook's URL with its variables filled in: loopback receivers only, as the sandbox delivers. */
async function deliver(hook: StoredHook, headers: Record<string, string>, body: string): Promise<Answer> {
  let target: URL | undefined;
  try {
    target = new URL(interpolatedUrl(hook));
  } catch {
    target = undefined;
  }
  if (!target) return { headers: {}, body: '', error: 'Invalid URL' };
  if (!isLoopbackHost(target.hostname)) return { headers: {}, body: '', error: `the sandbox delivers only to loopback addresses, not to ${target.hostname}` };
  return post(target, headers, body, hook.enable_ssl_verification);
}

/**
 * Delivers one payload to one hook now, records the event and moves the hook's failure state. `force` (a test)
 * delivers even to a disabled hook; otherwise a disabled hook answers "Hook disabled" and nothing is sent.
 */
export async function executeHook(env: HookEnv, hook: StoredHook, event: HookEventFlag, payload: unknown, options: { idempotencyKey?: string; force?: boolean } = {}): Promise<DeliveryResult | { status?: undefined; message: string; log?: undefined }> {
  const started = env.now();
  if (!options.force && alertStatus(hook, started) !== 'executable') return { message: 'Hook disabled' };
  const idempotencyKey = options.idempotencyKey ?? randomUUID();
  const { headers, shown } = deliveryHeaders(env, hook, event, idempotencyKey);
  const body = hook.custom_webhook_template ? renderTemplate(hook.custom_webhook_template, payload) : JSON.stringify(payload);
  const answer = await deliver(hook, headers, body);

  const finished = env.now();
  const success = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
  if (success) enable(hook);
  else backoff(hook, finished);
  const log: HookLog = {
    id: env.db.nextId('web_hook_logs'),
    hook_id: hook.id,
    url: hook.url,
    trigger: HOOK_EVENTS[event].trigger,
    request_headers: shown,
    request_data: redactEmails(payload),
    response_headers: answer.headers,
    response_body: answer.status === undefined ? (answer.error ?? '') : answer.body,
    execution_duration: Math.max(0, finished.getTime() - started.getTime()) / 1000,
    response_status: answer.status === undefined ? 'internal error' : String(answer.status),
    created_at: started.toISOString(),
    idempotency_key: idempotencyKey,
    event,
  };
  const logs = hookLogs(env.db);
  const oldest = new Date(finished.getTime() - EVENT_HISTORY_MS).toISOString();
  while (logs.length && logs[0].created_at < oldest) logs.shift();
  logs.push(log);
  return { status: answer.status, message: answer.status === undefined ? (answer.error ?? 'internal error') : answer.body, log };
}

/** Deliveries still running, per sandbox state (so tests and the control endpoint can wait for them). */
const running = new WeakMap<Db, Set<Promise<unknown>>>();

/** Resolves when every delivery started so far has finished. */
export async function deliveriesSettled(db: Db): Promise<void> {
  const set = running.get(db);
  while (set && set.size) await Promise.allSettled([...set]);
}

/** Whether a push to `branch` passes the hook's branch filter. */
export function branchMatches(hook: StoredHook, branch: string): boolean {
  const filter = hook.push_events_branch_filter;
  if (hook.branch_filter_strategy === 'all_branches' || !filter) return true;
  if (hook.branch_filter_strategy === 'regex') {
    try {
      return new RegExp(filter).test(branch);
    } catch {
      return false;
    }
  }
  // A wildcard filter matches as a protected branch's name does.
  return coversBranch(filter, branch);
}

/**
 * An event happened in a project: every executable hook subscribed to it gets the payload, after the current request
 * has been answered. `branch` applies the push branch filter.
 */
export function fireProjectHooks(env: HookEnv, project: Project, event: HookEventFlag, payload: unknown, options: { branch?: string } = {}): void {
  const now = env.now();
  const targets = storedHooks(env.db).filter((hook) =>
    hook.project_id === project.id && hook[event] === true && alertStatus(hook, now) === 'executable' && (options.branch === undefined || branchMatches(hook, options.branch)));
  if (!targets.length) return;
  let set = running.get(env.db);
  if (!set) running.set(env.db, (set = new Set()));
  for (const hook of targets) {
    const delivery: Promise<unknown> = new Promise((resolve) => setImmediate(resolve))
      .then(() => executeHook(env, hook, event, payload))
      .catch(() => undefined)
      .finally(() => set.delete(delivery));
    set.add(delivery);
  }
}
