import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { readBody } from './body.js';
import { control, simulatedDate, type Simulated } from './control.js';
import type { Db } from './db.js';
import { dispatch, type Site } from './dispatch.js';
import { Faults, injected, type InterleavedRequest, type LoggedRequest } from './faults.js';
import { HttpError, type SandboxResponse, type Tier } from './http.js';
import { listen } from './listen.js';
import { Throttle } from './rate-limit.js';
import { Router } from './router.js';
import { modules } from './routes/index.js';
import { drop, send } from './send.js';
import { openState } from './state.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  seed?: 'demo' | 'empty';
  users?: number;
  /** More projects in nested subgroups of acme (acme/team-NN/squad-N/svc-NNN), with the demo seed. */
  fleet?: number;
  latencyMs?: number;
  tier?: Tier;
  /** Persist state to this file (and load it when it exists). */
  stateFile?: string;
  /** Serve HTTPS with a generated self-signed certificate; the certificate is written to caFile. */
  tls?: boolean;
  caFile?: string;
  /**
   * The throttle of API requests (requests per period, counted for everyone together), as the service's
   * Rack::Attack throttle: RateLimit headers on every API answer, and 429 with Retry-After beyond the limit. Without
   * it there is no throttle and no RateLimit headers, as on an instance with the throttle off.
   */
  rateLimit?: { limit: number; periodSeconds?: number };
  /** Print server errors to this sink (default: stderr). */
  log?: (line: string) => void;
  /** The sandbox's clock (tests move it to check time-based rules such as rate limits and webhook backoff). */
  now?: () => Date;
  /** Size in bytes of the demo's large artifact (the build job of acme/api's main branch), for download benchmarks. */
  artifactSize?: number;
}

export interface Sandbox {
  /** API base: http://127.0.0.1:PORT/api/v4 */
  url: string;
  /** Instance root: http://127.0.0.1:PORT */
  rootUrl: string;
  /** An administrator's personal access token (root), expiring in a year. */
  adminToken: string;
  caFile?: string;
  db: Db;
  faults: Faults;
  tier: Tier;
  close(): Promise<void>;
}

/**
 * Starts the simulated instance. Tests start one per file on port 0; `forgectl sandbox` starts one for users. Its
 * parts: the state (seeded or loaded), the request pipeline (the routes of every module, faults, the throttle), and
 * the listening server (HTTP or HTTPS) that hands each request to the pipeline.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const tier = options.tier ?? 'ultimate';
  const now = options.now ?? (() => new Date());
  const seed = { seed: options.seed ?? 'demo', users: options.users ?? 0, fleet: options.fleet ?? 0, artifactSize: options.artifactSize };
  const { db, adminToken } = openState({ stateFile: options.stateFile, tier, seed }, now(), modules);
  const site: Site = { db, tier, now, modules, rootUrl: '' };
  const pipeline = requestPipeline(site, options);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const server = await listen(options, serve(pipeline, log));
  site.rootUrl = server.rootUrl;
  return { url: `${server.rootUrl}/api/v4`, rootUrl: server.rootUrl, adminToken, caFile: server.caFile, db, faults: pipeline.faults, tier, close: server.close };
}

/** The pipeline of a sandbox: every module's routes (API and web), its faults and throttle, and where state is saved. */
function requestPipeline(site: Site, options: SandboxOptions): Pipeline {
  const api = new Router();
  const web = new Router();
  for (const module of site.modules) module.routes(api, web);
  return {
    site,
    api,
    web,
    faults: new Faults(),
    throttle: options.rateLimit && new Throttle(options.rateLimit.limit, options.rateLimit.periodSeconds),
    latencyMs: options.latencyMs ?? 0,
    stateFile: options.stateFile,
    simulated: { clock_skew_seconds: 0 },
  };
}

/** The server's listener: each request through the pipeline; a failure is logged and answers 500. */
function serve(pipeline: Pipeline, log: (line: string) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(pipeline, req, res).catch((error: unknown) => {
      // A client that hung up mid-request (a CLI that stopped reading speculative pages) is not a server error. (The
      // request stream is destroyed as soon as its body has been read, so it says nothing about the client.)
      if (res.destroyed || (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      log(`sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) send(res, { status: 500, body: { message: '500 Internal Server Error' } });
    });
  };
}

/** What the request pipeline works with. */
interface Pipeline {
  site: Site;
  api: Router;
  web: Router;
  faults: Faults;
  throttle?: Throttle;
  latencyMs: number;
  stateFile?: string;
  simulated: Simulated;
}

/** The connections the sandbox accepted, numbered in order (for the request log). */
const connections = new WeakMap<object, number>();
let connectionCount = 0;

function connectionNumber(socket: object): number {
  let number = connections.get(socket);
  if (number === undefined) connections.set(socket, (number = ++connectionCount));
  return number;
}

/**
 * One request, in order: control endpoints; the request log; faults before processing (latency, a dropped
 * connection, an injected answer); the throttle (API requests); the route; the state saved after a change; faults
 * after processing (answer latency, a dropped answer, a cut or corrupted body).
 */
async function handle(pipeline: Pipeline, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { site, api, web, faults, throttle, latencyMs, stateFile, simulated } = pipeline;
  const url = new URL(req.url ?? '/', 'http://sandbox');
  // The path as sent: a WHATWG URL would resolve an encoded `%2E%2E` segment, which the service does not do.
  const pathname = (req.url ?? '/').replace(/[?#].*/s, '') || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  if (pathname.startsWith('/-/sandbox/')) return control(req, res, url, method, faults, site.db, simulated);
  const isApi = pathname === '/api/v4' || pathname.startsWith('/api/v4/');
  const rawPath = isApi ? pathname.slice('/api/v4'.length) || '/' : pathname;
  const fault = faults.take(method, rawPath, url.search.slice(1));
  const latency = latencyMs + (fault?.latency_ms ?? 0);
  if (latency) await new Promise((resolve) => setTimeout(resolve, latency));
  if (fault?.interleave) await interleave(pipeline, req, fault.interleave);
  const entry: LoggedRequest = { method, path: pathname + url.search, status: 0, at: new Date().toISOString(), connection: connectionNumber(req.socket) };
  faults.log.push(entry);
  if (fault?.drop === 'before') {
    entry.status = 'dropped';
    await readBody(req).catch(() => undefined);
    return drop(res);
  }
  const counted = { ...(throttle && isApi ? throttle.countRequest() : {}), ...simulatedDate(simulated) };
  if (fault?.status) {
    await readBody(req).catch(() => undefined);
    entry.status = fault.status;
    if (fault.retry_after !== undefined) entry.retry_after = fault.retry_after;
    return send(res, injected(fault), counted);
  }
  const refusal = throttle && isApi ? throttle.refusal(counted) : undefined;
  if (refusal) {
    await readBody(req).catch(() => undefined);
    entry.status = 429;
    entry.retry_after = refusal.retryAfter;
    return send(res, refusal.response, refusal.headers);
  }
  let response: SandboxResponse;
  try {
    response = await dispatch(site, isApi ? api : web, req, url, method, rawPath, isApi);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = { status: error.status, body: error.body, headers: error.headers };
  }
  if (simulated.version && isApi && (rawPath === '/version' || rawPath === '/metadata') && response.status === 200) response = { ...response, body: { ...(response.body as object), version: simulated.version } };
  entry.status = response.status;
  if (method !== 'GET' && method !== 'HEAD' && response.status < 400 && stateFile) site.db.save(stateFile);
  if (fault?.answer_latency_ms) await new Promise((resolve) => setTimeout(resolve, fault.answer_latency_ms));
  if (fault?.drop === 'after') {
    entry.status = 'dropped';
    return drop(res);
  }
  send(res, response, counted, method === 'HEAD', fault);
}

/**
 * A fault's interleaved request: processed (and logged) before the request it precedes, with that request's headers
 * (its credentials) and a JSON body; its answer goes nowhere.
 */
async function interleave({ site, api, faults, stateFile }: Pipeline, original: IncomingMessage, request: InterleavedRequest): Promise<void> {
  const method = request.method.toUpperCase();
  const body = Buffer.from(request.body === undefined ? '' : JSON.stringify(request.body));
  const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = original.headers;
  const req = Object.assign(Readable.from(body.length ? [body] : []), { headers: { ...headers, 'content-type': 'application/json' }, socket: original.socket }) as unknown as IncomingMessage;
  const entry: LoggedRequest = { method, path: `/api/v4${request.path}`, status: 0, at: new Date().toISOString(), connection: connectionNumber(original.socket) };
  faults.log.push(entry);
  try {
    entry.status = (await dispatch(site, api, req, new URL(`http://sandbox/api/v4${request.path}`), method, request.path.replace(/[?#].*/s, ''), true)).status;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    entry.status = error.status;
  }
  if (method !== 'GET' && method !== 'HEAD' && entry.status < 400 && stateFile) site.db.save(stateFile);
}
