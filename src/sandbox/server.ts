import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticate, checkScope } from './auth.js';
import { parseBody, parseParams, readBody } from './body.js';
import { Db } from './db.js';
import { Faults, InvalidFault, type Fault, type LoggedRequest } from './faults.js';
import { HttpError, type SandboxRequest, type SandboxResponse, type Tier } from './http.js';
import { tokens } from './model.js';
import { Router } from './router.js';
import { modules } from './routes/index.js';
import { seedCore } from './seed.js';
import { deliveriesSettled } from './webhooks.js';

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

/** Starts the simulated instance. Tests start one per file on port 0; `forgectl sandbox` starts one for users. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const tier = options.tier ?? 'ultimate';
  const clock = options.now ?? (() => new Date());
  const now = clock();
  let db: Db;
  let adminToken: string;
  if (options.stateFile && existsSync(options.stateFile)) {
    db = Db.load(options.stateFile);
    adminToken = tokens(db).find((t) => t.name === 'sandbox-admin' && t.active)?.token ?? '';
  } else {
    db = new Db();
    const seedOptions = { seed: options.seed ?? 'demo', users: options.users ?? 0, fleet: options.fleet ?? 0, now, artifactSize: options.artifactSize };
    adminToken = seedCore(db, seedOptions).adminToken.token;
    if (seedOptions.seed === 'demo') for (const module of modules) module.seed?.(db, { ...seedOptions, tier });
  }
  const api = new Router();
  const web = new Router();
  for (const module of modules) module.routes(api, web);
  const faults = new Faults();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const rate = options.rateLimit ? { limit: options.rateLimit.limit, periodMs: (options.rateLimit.periodSeconds ?? 60) * 1000, window: 0, count: 0 } : undefined;

  // What /-/sandbox/instance simulates (doctor's failures): an older version, and a clock (the Date header) that is off.
  const simulated: { version?: string; clock_skew_seconds: number } = { clock_skew_seconds: 0 };
  const dateHeader = (): Record<string, string> => (simulated.clock_skew_seconds ? { Date: new Date(Date.now() + simulated.clock_skew_seconds * 1000).toUTCString() } : {});

  let rootUrl = '';
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      // A client that hung up mid-request (a CLI that stopped reading speculative pages) is not a server error. (The
      // request stream is destroyed as soon as its body has been read, so it says nothing about the client.)
      if (res.destroyed || (error as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      log(`sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) send(res, { status: 500, body: { message: '500 Internal Server Error' } });
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    // The path as sent: a WHATWG URL would resolve an encoded `%2E%2E` segment, which the service does not do.
    const pathname = (req.url ?? '/').replace(/[?#].*/s, '') || '/';
    const method = (req.method ?? 'GET').toUpperCase();
    if (pathname.startsWith('/-/sandbox/')) return control(req, res, url, method);
    const isApi = pathname === '/api/v4' || pathname.startsWith('/api/v4/');
    const rawPath = isApi ? pathname.slice('/api/v4'.length) || '/' : pathname;
    const fault = faults.take(method, rawPath, url.search.slice(1));
    const latency = (options.latencyMs ?? 0) + (fault?.latency_ms ?? 0);
    if (latency) await new Promise((resolve) => setTimeout(resolve, latency));
    const entry: LoggedRequest = { method, path: pathname + url.search, status: 0, at: new Date().toISOString() };
    faults.log.push(entry);
    if (fault?.drop === 'before') {
      entry.status = 'dropped';
      await readBody(req).catch(() => undefined);
      return drop(res);
    }
    if (fault?.status) {
      await readBody(req).catch(() => undefined);
      entry.status = fault.status;
      if (fault.retry_after !== undefined) entry.retry_after = fault.retry_after;
      return send(res, injected(fault), rate && isApi ? rateHeaders(rate) : {});
    }
    const budget = { ...(rate && isApi ? rateHeaders(rate) : {}), ...dateHeader() };
    if (rate && isApi && rate.count > rate.limit) {
      await readBody(req).catch(() => undefined);
      entry.status = 429;
      const resetAt = (rate.window + 1) * rate.periodMs;
      entry.retry_after = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
      const throttled = { 'RateLimit-ResetTime': new Date(resetAt).toUTCString(), 'Retry-After': String(entry.retry_after) };
      return send(res, { status: 429, raw: { data: 'Retry later\n', contentType: 'text/plain' } }, { ...budget, ...throttled });
    }
    let response: SandboxResponse;
    try {
      response = await dispatch(isApi ? api : web, req, url, method, rawPath, isApi);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      response = { status: error.status, body: error.body, headers: error.headers };
    }
    if (simulated.version && isApi && (rawPath === '/version' || rawPath === '/metadata') && response.status === 200) response = { ...response, body: { ...(response.body as object), version: simulated.version } };
    entry.status = response.status;
    if (method !== 'GET' && method !== 'HEAD' && response.status < 400 && options.stateFile) db.save(options.stateFile);
    if (fault?.answer_latency_ms) await new Promise((resolve) => setTimeout(resolve, fault.answer_latency_ms));
    if (fault?.drop === 'after') {
      entry.status = 'dropped';
      return drop(res);
    }
    send(res, response, budget, method === 'HEAD', fault);
  }

  async function dispatch(router: Router, req: IncomingMessage, url: URL, method: string, rawPath: string, isApi: boolean): Promise<SandboxResponse> {
    const route = router.match(method, rawPath);
    const raw = await readBody(req);
    if (!route) {
      throw new HttpError(404, isApi ? { error: '404 Not Found' } : 'Not Found');
    }
    const query = parseParams(url.searchParams);
    const parsed = parseBody(raw, req.headers['content-type']);
    const request: SandboxRequest = {
      method,
      rawPath,
      params: route.params,
      query,
      input: { ...query, ...parsed.params },
      body: parsed.body,
      files: parsed.files,
      headers: req.headers,
      db,
      tier,
      rootUrl,
      baseUrl: `${rootUrl}/api/v4`,
      now: clock,
      pushed: (event) => {
        for (const module of modules) module.onPush?.(event, { db, tier, rootUrl, now: clock });
      },
    };
    const auth = route.options.auth ?? 'required';
    if (auth !== 'none') {
      authenticate(request, { optional: auth === 'optional' });
      checkScope(request, route.options.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write'));
    }
    return route.handler(request);
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<void> {
    const raw = (await readBody(req)).toString('utf8');
    const path = url.pathname.slice('/-/sandbox'.length);
    if (path === '/faults' && method === 'POST') {
      // JSON whatever the content type: `curl -d '{…}'` sends it as a form.
      try {
        return send(res, { status: 201, body: faults.add(JSON.parse(raw)) });
      } catch (error) {
        const message = error instanceof SyntaxError ? `the body is not JSON: ${error.message}` : (error as Error).message;
        if (error instanceof SyntaxError || error instanceof InvalidFault) return send(res, { status: 400, body: { error: message } });
        throw error;
      }
    }
    if (path === '/faults' && method === 'GET') return send(res, { status: 200, body: faults.list() });
    if (path === '/faults' && method === 'DELETE') {
      faults.clear();
      return send(res, { status: 204 });
    }
    if (path === '/requests' && method === 'GET') return send(res, { status: 200, body: faults.log });
    if (path === '/instance' && method === 'GET') return send(res, { status: 200, body: simulated });
    if (path === '/instance' && method === 'POST') {
      let change: Record<string, unknown>;
      try {
        change = JSON.parse(raw || '{}') as Record<string, unknown>;
      } catch (error) {
        return send(res, { status: 400, body: { error: `the body is not JSON: ${(error as Error).message}` } });
      }
      const unknown = Object.keys(change).filter((key) => key !== 'version' && key !== 'clock_skew_seconds');
      if (unknown.length) return send(res, { status: 400, body: { error: `unknown key ${unknown.join(', ')}; known: version, clock_skew_seconds` } });
      if (change.version !== undefined && (typeof change.version !== 'string' || !/^\d+\.\d+\.\d+/.test(change.version))) return send(res, { status: 400, body: { error: 'version must be like "16.5.0-ee"' } });
      if (change.clock_skew_seconds !== undefined && !Number.isInteger(change.clock_skew_seconds)) return send(res, { status: 400, body: { error: 'clock_skew_seconds must be whole seconds (negative: behind)' } });
      Object.assign(simulated, change);
      return send(res, { status: 200, body: simulated });
    }
    if (path === '/deliveries' && method === 'GET') {
      await deliveriesSettled(db);
      return send(res, { status: 200, body: { running: 0 } });
    }
    if (path === '/requests' && method === 'DELETE') {
      faults.log.length = 0;
      return send(res, { status: 204 });
    }
    send(res, { status: 404, body: { error: 'unknown sandbox control endpoint; see /-/sandbox/faults, /-/sandbox/requests, /-/sandbox/deliveries and /-/sandbox/instance' } });
  }

  let caFile: string | undefined;
  let server: Server;
  if (options.tls) {
    const { generateCertificate } = await import('./tls.js');
    const host = options.host ?? '127.0.0.1';
    const pems = await generateCertificate(host);
    caFile = options.caFile ?? join(tmpdir(), `forgectl-sandbox-ca-${process.pid}-${randomUUID().slice(0, 8)}.pem`);
    writeFileSync(caFile, pems.cert, { mode: 0o644 });
    server = createHttpsServer({ key: pems.private, cert: pems.cert }, handler);
  } else {
    server = createHttpServer(handler);
  }
  server.keepAliveTimeout = 5000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  rootUrl = `${options.tls ? 'https' : 'http'}://${hostForUrl}:${address.port}`;
  return {
    url: `${rootUrl}/api/v4`,
    rootUrl,
    adminToken,
    caFile,
    db,
    faults,
    tier,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function injected(fault: Fault): SandboxResponse {
  const status = fault.status!;
  const headers: Record<string, string> = { ...fault.headers };
  if (fault.retry_after !== undefined) headers['Retry-After'] = String(fault.retry_after);
  if (status === 429 && fault.body === undefined) return { status, raw: { data: 'Retry later\n', contentType: 'text/plain' }, headers };
  // A string body is sent as it is, with the fault's Content-Type (an HTML page of a proxy, broken JSON).
  if (typeof fault.body === 'string') {
    const typeHeader = Object.keys(headers).find((name) => name.toLowerCase() === 'content-type');
    const contentType = typeHeader ? headers[typeHeader] : 'text/plain';
    if (typeHeader) delete headers[typeHeader];
    return { status, raw: { data: fault.body, contentType }, headers };
  }
  return { status, body: fault.body ?? { message: `${status} Injected fault` }, headers };
}

/** Counts a request in the current window and returns the RateLimit headers every API answer carries. */
function rateHeaders(rate: { limit: number; periodMs: number; window: number; count: number }): Record<string, string> {
  const window = Math.floor(Date.now() / rate.periodMs);
  if (rate.window !== window) Object.assign(rate, { window, count: 0 });
  rate.count++;
  return {
    'RateLimit-Name': 'throttle_authenticated_api',
    'RateLimit-Limit': String(rate.limit),
    'RateLimit-Observed': String(rate.count),
    'RateLimit-Remaining': String(Math.max(0, rate.limit - rate.count)),
    'RateLimit-Reset': String(Math.ceil(((window + 1) * rate.periodMs) / 1000)),
  };
}

function drop(res: ServerResponse): void {
  res.socket?.destroy();
}

function send(res: ServerResponse, response: SandboxResponse, extra: Record<string, string> = {}, headOnly = false, fault?: Fault): void {
  const headers: Record<string, string> = { 'X-Request-Id': randomUUID().replace(/-/g, '').slice(0, 26), 'X-Runtime': '0.010000', ...extra, ...response.headers };
  if (response.stream) return void sendStream(res, response.status, headers, response.stream, headOnly, fault).catch(() => res.socket?.destroy());
  let payload: Buffer | string = '';
  if (response.raw) {
    headers['Content-Type'] = response.raw.contentType;
    payload = response.raw.data;
  } else if (response.body !== undefined && response.status !== 204) {
    if (typeof response.body === 'string' && response.status >= 400) {
      headers['Content-Type'] = 'text/plain';
      payload = response.body;
    } else {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(response.body);
    }
  }
  headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(response.status, headers);
  if (fault?.corrupt && payload.length) {
    const bytes = Buffer.from(payload);
    bytes[bytes.length >> 1] ^= 0xff;
    payload = bytes;
  }
  if (fault?.drop === 'body') {
    res.write(Buffer.from(payload).subarray(0, -1), () => res.socket?.destroy());
    return;
  }
  res.end(headOnly ? undefined : payload);
}

/**
 * Writes a streamed body as the client reads it (backpressure). Faults act on it as on any body: 'body' cuts it one
 * byte short, corrupt flips the byte in the middle.
 */
async function sendStream(res: ServerResponse, status: number, headers: Record<string, string>, stream: NonNullable<SandboxResponse['stream']>, headOnly: boolean, fault?: Fault): Promise<void> {
  res.writeHead(status, { ...headers, 'Content-Type': stream.contentType, 'Content-Length': String(stream.size) });
  if (headOnly) return void res.end();
  const cutShort = fault?.drop === 'body';
  const middle = fault?.corrupt ? stream.size >> 1 : -1;
  let sent = 0;
  const end = cutShort ? stream.size - 1 : stream.size;
  for await (const chunk of stream.chunks) {
    if (res.destroyed) return;
    let part = chunk.subarray(0, Math.max(0, end - sent));
    if (middle >= sent && middle < sent + part.length) {
      part = Buffer.from(part);
      part[middle - sent] ^= 0xff;
    }
    sent += part.length;
    if (part.length && !res.write(part)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
    if (sent >= end) break;
  }
  if (cutShort) res.socket?.destroy();
  else res.end();
}
