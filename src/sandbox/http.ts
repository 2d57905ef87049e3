import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from './db.js';
import type { PushEvent } from './git/repository.js';
import type { AccessToken, User } from './model.js';

/** A parsed request as route handlers see it. */
export interface SandboxRequest {
  method: string;
  /** Path below /api/v4, raw (still percent-encoded). */
  rawPath: string;
  params: Record<string, string>;
  /** Query string and body parameters merged (body wins), as the service treats them. */
  input: Record<string, any>;
  query: Record<string, any>;
  body: unknown;
  /** Uploaded files of a multipart body. */
  files: Record<string, { filename: string; contentType: string; data: Buffer }>;
  headers: IncomingHttpHeaders;
  db: Db;
  /** The authenticated user and token; undefined on routes that allow anonymous access. */
  user?: User;
  token?: AccessToken;
  tier: Tier;
  /** http(s)://host:port of the sandbox, and the API base below it. */
  rootUrl: string;
  baseUrl: string;
  now(): Date;
  /** Tells every sandbox module that a branch moved (SandboxModule.onPush). */
  pushed(event: PushEvent): void;
}

export type Tier = 'free' | 'premium' | 'ultimate';

/** The version of the service the sandbox answers as (/version, /metadata, the webhook User-Agent). */
export const SANDBOX_VERSION = '17.11.0-ee';

export interface SandboxResponse {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON. */
  raw?: { data: Buffer | string; contentType: string };
  /** A large body sent in chunks as the client reads it (artifact archives): `size` bytes from `chunks`. */
  stream?: { size: number; contentType: string; chunks: Iterable<Buffer> | AsyncIterable<Buffer> };
  headers?: Record<string, string>;
}

/** Thrown by handlers: becomes the response as is. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export const ok = (body: unknown, headers?: Record<string, string>): SandboxResponse => ({ status: 200, body, headers });
export const created = (body: unknown): SandboxResponse => ({ status: 201, body });
export const accepted = (body: unknown = { message: '202 Accepted' }): SandboxResponse => ({ status: 202, body });
export const noContent = (): SandboxResponse => ({ status: 204 });

/** Error body shapes of api-facts §4. */
export const errors = {
  /** {"message":"…"}: render_api_error! */
  message: (status: number, message: string) => new HttpError(status, { message }),
  /** {"error":"…"}: Grape error! and parameter validation */
  error: (status: number, error: string) => new HttpError(status, { error }),
  /** {"message":{"field":["…"]}}: model validation */
  validation: (fields: Record<string, string[]>, status = 400) => new HttpError(status, { message: fields }),
  notFound: (what = '') => new HttpError(404, { message: what ? `404 ${what} Not Found` : '404 Not found' }),
  forbidden: (reason?: string) => new HttpError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' }),
  unauthorized: () => new HttpError(401, { message: '401 Unauthorized' }),
  missing: (param: string) => new HttpError(400, { error: `${param} is missing` }),
  invalid: (param: string) => new HttpError(400, { error: `${param} does not have a valid value` }),
  badRequest: (message: string) => new HttpError(400, { message: `400 Bad request - ${message}` }),
};

/** A request header's value (the first, when it is given more than once); `name` in lower case. */
export function header(req: Pick<SandboxRequest, 'headers'>, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a required parameter, answering 400 `{"error":"x is missing"}` as Grape does. */
export function required(req: SandboxRequest, name: string): any {
  const value = req.input[name];
  if (value === undefined || value === null || value === '') throw errors.missing(name);
  return value;
}

export function bool(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  return ['true', '1', 'yes', 't'].includes(String(value).toLowerCase());
}

export function int(value: unknown, name = 'value'): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw errors.invalid(name);
  return n;
}

export function array(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String);
  return String(value).split(',').filter(Boolean);
}

/**
 * A Content-Disposition header naming a file as Rails does: an ASCII fallback in filename= and the UTF-8 name in
 * filename*= (a header carries bytes, and Node refuses characters beyond Latin-1 and control characters).
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
