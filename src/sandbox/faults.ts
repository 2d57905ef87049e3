import type { SandboxResponse } from './http.js';
import { safeDecode } from './router.js';

/** Deterministic fault injection for tests, driven through /-/sandbox/faults. */
export interface Fault {
  id: number;
  /** Only requests with this method (any when absent). */
  method?: string;
  /** A regular expression tested against the path below /api/v4 (raw and decoded) or the full path for WEB routes. */
  path?: string;
  /** A regular expression tested against the query string (without `?`): `(^|&)page=3(&|$)`. */
  query?: string;
  /** Answer with this status instead of processing the request. */
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Adds Retry-After (seconds) to the injected answer. */
  retry_after?: number;
  /** Delay before processing the request. */
  latency_ms?: number;
  /** Delay after the request was processed, before its answer is sent (the state has already changed). */
  answer_latency_ms?: number;
  /**
   * Close the connection: 'before' processing, 'after' the request was processed (the answer is lost), or during
   * the answer's 'body' (all of it but the last byte is sent).
   */
  drop?: 'before' | 'after' | 'body';
  /** Process the request, then flip a byte in the middle of the response body (headers unchanged): a corrupted download. */
  corrupt?: boolean;
  /** Send the answer's body in chunks (Transfer-Encoding: chunked, no Content-Length), as a proxy or a streaming server may. */
  chunked?: boolean;
  /**
   * Before processing the matched request, process this API request (path below /api/v4, a JSON body) with the
   * matched request's credentials: another client's change landing between a client's last check and its write.
   */
  interleave?: InterleavedRequest;
  /** How many matching requests this fault applies to (default 1). */
  times?: number;
}

export interface InterleavedRequest {
  method: string;
  path: string;
  body?: unknown;
}

const FAULT_KEYS = ['method', 'path', 'query', 'status', 'body', 'headers', 'retry_after', 'latency_ms', 'answer_latency_ms', 'drop', 'corrupt', 'chunked', 'interleave', 'times'];

/** Thrown for a fault description that cannot be used; the control endpoint answers it with 400. */
export class InvalidFault extends Error {}

/**
 * Checks a fault description (parsed JSON): known keys only, each of the right type, and at least one effect, so a
 * typo never becomes a catch-all fault that silently swallows the next request.
 */
export function validateFault(input: unknown): Omit<Fault, 'id'> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new InvalidFault('a fault is a JSON object');
  const fault = input as Record<string, unknown>;
  const unknown = Object.keys(fault).filter((key) => !FAULT_KEYS.includes(key));
  if (unknown.length) throw new InvalidFault(`unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known: ${FAULT_KEYS.join(', ')}`);
  const isInt = (value: unknown, min: number, max: number) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
  if (fault.method !== undefined && (typeof fault.method !== 'string' || !/^[A-Za-z]+$/.test(fault.method))) throw new InvalidFault('method must be an HTTP method such as "GET"');
  for (const key of ['path', 'query']) {
    if (fault[key] === undefined) continue;
    if (typeof fault[key] !== 'string') throw new InvalidFault(`${key} must be a regular expression as a string`);
    try {
      new RegExp(fault[key]);
    } catch (error) {
      throw new InvalidFault(`${key} is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (fault.status !== undefined && !isInt(fault.status, 100, 599)) throw new InvalidFault('status must be an HTTP status (100-599)');
  if (fault.headers !== undefined && (!fault.headers || typeof fault.headers !== 'object' || Object.values(fault.headers).some((v) => typeof v !== 'string'))) {
    throw new InvalidFault('headers must be an object of strings');
  }
  if (fault.retry_after !== undefined && !isInt(fault.retry_after, 0, 3600)) throw new InvalidFault('retry_after must be whole seconds (0-3600)');
  for (const key of ['latency_ms', 'answer_latency_ms']) {
    if (fault[key] !== undefined && !isInt(fault[key], 0, 600_000)) throw new InvalidFault(`${key} must be whole milliseconds (0-600000)`);
  }
  const drops = ['before', 'after', 'body'];
  if (fault.drop !== undefined && !drops.includes(fault.drop as string)) throw new InvalidFault(`drop must be one of ${drops.join(', ')}`);
  if (fault.times !== undefined && !isInt(fault.times, 1, 1_000_000)) throw new InvalidFault('times must be a positive integer');
  if (fault.corrupt !== undefined && fault.corrupt !== true) throw new InvalidFault('corrupt must be true');
  if (fault.chunked !== undefined && fault.chunked !== true) throw new InvalidFault('chunked must be true');
  if (fault.interleave !== undefined) validateInterleave(fault.interleave);
  if (fault.status === undefined && fault.drop === undefined && fault.latency_ms === undefined && fault.answer_latency_ms === undefined && !fault.corrupt && !fault.chunked && !fault.interleave) {
    throw new InvalidFault('a fault needs an effect: status, drop, corrupt, chunked, interleave, latency_ms or answer_latency_ms');
  }
  if ((fault.body !== undefined || fault.headers !== undefined || fault.retry_after !== undefined) && fault.status === undefined) {
    throw new InvalidFault('body, headers and retry_after need a status');
  }
  return fault as Omit<Fault, 'id'>;
}

function validateInterleave(value: unknown): void {
  const request = value as Partial<InterleavedRequest> | undefined;
  if (!request || typeof request !== 'object' || Array.isArray(request)) throw new InvalidFault('interleave is a request: {"method": "POST", "path": "/projects/1/repository/commits", "body": {…}}');
  if (typeof request.method !== 'string' || !/^[A-Za-z]+$/.test(request.method)) throw new InvalidFault('interleave.method must be an HTTP method such as "POST"');
  if (typeof request.path !== 'string' || !request.path.startsWith('/')) throw new InvalidFault('interleave.path must be a path below /api/v4, starting with /');
  const unknown = Object.keys(request).filter((key) => !['method', 'path', 'body'].includes(key));
  if (unknown.length) throw new InvalidFault(`unknown key${unknown.length > 1 ? 's' : ''} interleave.${unknown.join(', interleave.')}; known: method, path, body`);
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number | 'dropped';
  at: string;
  /** The Retry-After (seconds) of a 429, so a client's pauses can be checked against it. */
  retry_after?: number;
  /** Which connection it came on (numbered from 1 as they are accepted): keep-alive reuse shows as repeats. */
  connection?: number;
}

export class Faults {
  private faults: Fault[] = [];
  private sequence = 0;
  readonly log: LoggedRequest[] = [];

  /** Adds a fault after validateFault(); throws InvalidFault. */
  add(fault: unknown): Fault {
    const added = { times: 1, ...validateFault(fault), id: ++this.sequence };
    this.faults.push(added);
    return added;
  }

  list(): Fault[] {
    return [...this.faults];
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault matching the request, consumed once. */
  take(method: string, rawPath: string, query = ''): Fault | undefined {
    const decoded = safeDecode(rawPath);
    const fault = this.faults.find(
      (f) =>
        (!f.method || f.method.toUpperCase() === method) &&
        (!f.path || new RegExp(f.path).test(rawPath) || new RegExp(f.path).test(decoded)) &&
        (!f.query || new RegExp(f.query).test(query)),
    );
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }
}

/** The answer a fault with a status gives instead of processing the request. */
export function injected(fault: Fault): SandboxResponse {
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
