import { ApiError, CliError, DryRunComplete, ExitCode } from '../errors.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../http/client.js';
import { sameOrigin, splitUrl } from '../http/url.js';
import { abridgeBody, redactBody, redactUrl } from '../http/redact.js';
import { serverWaitMs, tooLongWait, type RetryMode } from '../http/retry.js';
import { errorMessageFromBody, hintForStatus } from './errors.js';
import { ListResult, type ListOptions } from './paginate.js';
import type { ApiResponse } from './response.js';
import { expandRoute, isRoute, toQueryString, type Query, type RouteParamNames, type RouteParams } from './path.js';

/** A route's parameters (required when its path has any) and request options. */
type CallArgs<R extends string> = RouteParamNames<R> extends never
  ? [params?: Record<string, unknown>, options?: Partial<ApiRequest>]
  : [params: RouteParams<R>, options?: Partial<ApiRequest>];

/** What the client needs of a connection (the resolved connection of config/resolve.ts has more). */
export interface ApiConnection {
  /** API base, always ending in /api/v4. */
  baseUrl: string;
  token: string;
  tokenType: 'private' | 'job' | 'oauth';
  tokenSource: 'environment' | 'profile' | 'keyring' | 'token_command' | 'ci_job';
}

export interface ApiRequest {
  method: string;
  /** Relative to the API base ("/user"), or an absolute URL (pagination links, alert intake). */
  path: string;
  query?: Query;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with its content type (multipart uploads, license keys as text). */
  rawBody?: { data: Buffer | string; contentType: string };
  headers?: Record<string, string>;
  retry?: RetryMode;
  /** Read the whole body before returning (request() does), or when the answer's headers say so; see HttpRequest. */
  read?: HttpRequest['read'];
  /** Send the profile's token (default). Absolute URLs on another origin never get it. */
  auth?: boolean;
  /**
   * Answers from the origin asked only: a redirect elsewhere is an error (exit 8), not followed (JSON answers: what
   * another origin answers is not this instance's data). Downloads may be sent on to object storage. A function says
   * it of the answer a redirect elsewhere led to, by its headers (api: its JSON or text, but not its download).
   */
  sameOrigin?: boolean | ((header: (name: string) => string | undefined) => boolean);
  /** Body fields shown as [REDACTED] by --dry-run besides the secret-looking names (a write-only `value`). */
  redact?: string[];
  /** A POST that only reads (a GraphQL query): sent under --dry-run, retried as a GET is, and no change in flight. */
  reads?: boolean;
  /** What the answer should hold, as an error about an empty answer names it ("a list"; JSON when absent). */
  expected?: string;
}

export interface ApiHooks {
  dryRun: boolean;
  /** Where --dry-run prints the request it did not send (stdout). */
  printDryRun(text: string): void;
  /** Holds the changing requests in flight, so an interrupted run can say which outcome is unknown. */
  changesInFlight?: Set<{ what: string }>;
}

/** Logging in does not help a CI job: its token reaches only some endpoints, and only of allowed projects. */
const JOB_TOKEN_HINT =
  "a CI job token reaches only what job tokens may (artifacts, packages, releases, secure files of the job's project and the projects that allow it); for anything else give the job an access token in a masked variable FORGECTL_TOKEN";

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The service's REST API: URL building, authentication, JSON, errors, dry-run and pagination. */
export class Api {
  constructor(
    readonly connection: ApiConnection,
    private readonly http: HttpClient,
    private readonly hooks: ApiHooks,
  ) {}

  /** The same connection and HTTP client (its pool, retries and rate gate) with other dry-run hooks. */
  withHooks(hooks: ApiHooks): Api {
    return new Api(this.connection, this.http, hooks);
  }

  url(path: string, query?: Query): string {
    const base = /^https?:\/\//i.test(path) ? path : `${this.connection.baseUrl}${path}`;
    return base + (query ? toQueryString(query).replace(/^\?/, base.includes('?') ? '&' : '?') : '');
  }

  authHeaders(): Record<string, string> {
    const { token, tokenType } = this.connection;
    if (tokenType === 'job') return { 'JOB-TOKEN': token };
    if (tokenType === 'oauth') return { Authorization: `Bearer ${token}` };
    return { 'PRIVATE-TOKEN': token };
  }

  /** Sends a request and returns the raw response; error statuses throw ApiError. */
  async send(request: ApiRequest): Promise<HttpResponse> {
    const method = request.method.toUpperCase();
    let url = this.url(request.path, request.query);
    const headers: Record<string, string> = { ...request.headers };
    let body: string | Buffer | undefined;
    if (request.rawBody) {
      body = request.rawBody.data;
      headers['content-type'] = request.rawBody.contentType;
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const changes = MUTATING.has(method) && !request.reads;
    if (this.hooks.dryRun && changes) {
      const shown = request.rawBody ? `(${request.rawBody.contentType}, ${Buffer.byteLength(request.rawBody.data)} bytes)` : request.body !== undefined ? JSON.stringify(abridgeBody(redactBody(request.body, '', request.redact)), null, 2) : '';
      this.hooks.printDryRun(`${method} ${redactUrl(url)}${shown ? `\n${shown}` : ''}\n`);
      throw new DryRunComplete();
    }
    /** The redirect that led to another origin, if one did. */
    let away: { status: number; location: string; from: string } | undefined;
    for (let redirects = 0; ; redirects++) {
      // The token goes only to its own instance: never to another origin (a redirect or a link elsewhere).
      const auth = request.auth !== false && sameOrigin(url, this.connection.baseUrl) ? this.authHeaders() : {};
      const change = changes ? { what: `${method} ${this.displayPath(url)}` } : undefined;
      if (change) this.hooks.changesInFlight?.add(change);
      let response: HttpResponse;
      try {
        response = await this.http.send({ method, url, headers: { ...headers, ...auth }, body, retry: request.reads ? 'repeatable' : request.retry, read: request.read });
      } finally {
        if (change) this.hooks.changesInFlight?.delete(change);
      }
      const location = response.header('location');
      const redirect = [301, 302, 303, 307, 308].includes(response.status);
      const read = method === 'GET' || method === 'HEAD';
      const elsewhere = read && redirect && location !== undefined && request.sameOrigin === true && !sameOrigin(new URL(location, url).toString(), url);
      if (read && redirect && location && redirects < MAX_REDIRECTS && !elsewhere) {
        await response.body.dump().catch(() => undefined);
        const next = new URL(location, url).toString();
        if (!away && !sameOrigin(next, url)) away = { status: response.status, location, from: url };
        url = next;
        continue;
      }
      if (away && !sameOrigin(url, away.from) && typeof request.sameOrigin === 'function' && request.sameOrigin(response.header)) {
        await response.body.dump().catch(() => undefined);
        throw unfollowed(away.status, method, this.displayPath(away.from), away.location, away.from, 'elsewhere');
      }
      if (response.status >= 400) throw await this.errorFrom(response, method, url);
      // Any other answer that is not a success (a redirect not followed) is an error, never an empty success.
      if (response.status < 200 || response.status >= 300) {
        await response.body.dump().catch(() => undefined);
        throw unfollowed(response.status, method, this.displayPath(url), location, url, elsewhere ? 'elsewhere' : redirects >= MAX_REDIRECTS && redirect ? 'loop' : 'write');
      }
      return response;
    }
  }

  /**
   * Sends a request whose answer is JSON (or empty); anything else is a server failure (exit 8). With `lazy`, an
   * answer that says it is JSON is parsed when its data is first read (a list page written as its own bytes never is),
   * and the failure is thrown then.
   */
  async request<T = unknown>(request: ApiRequest & { lazy?: boolean }): Promise<ApiResponse<T>> {
    const response = await this.send({ ...request, read: true, sameOrigin: true });
    const body = await response.buffer();
    // A GET answered 200 has a JSON body in this API: an empty one is a broken answer (a proxy's), not "nothing".
    const method = request.method.toUpperCase();
    if (method === 'GET' && response.status === 200 && !body.toString('utf8').trim()) {
      throw new CliError(`the server answered 200 with an empty body where ${request.expected ?? 'JSON'} was expected (GET ${this.displayPath(this.url(request.path, request.query))})`, ExitCode.server);
    }
    const type = contentType(response);
    const parse = (): T => {
      const json = jsonOf(body.toString('utf8'), type);
      if (json.kind !== 'json') throw this.notJson(request, response.status, json.kind, json.type, json.why);
      return json.value as T;
    };
    if (!request.lazy || !JSON_TYPE.test(type)) return { status: response.status, header: response.header, data: parse(), body };
    let parsed: { data: T } | undefined;
    return {
      status: response.status,
      header: response.header,
      body,
      get data() {
        parsed ??= { data: parse() };
        return parsed.data;
      },
    };
  }

  /** The server failure (exit 8) of an answer that is malformed JSON or not JSON. */
  notJson(request: ApiRequest, status: number, kind: 'malformed' | 'other', type: string, why?: string): CliError {
    const what = kind === 'malformed' ? why ?? 'malformed JSON' : `${type || 'a body without a content type'}, not JSON`;
    return new CliError(
      `the server answered ${status} with ${what} (${request.method.toUpperCase()} ${this.displayPath(this.url(request.path, request.query))})`,
      ExitCode.server,
      kind === 'other' && /html/i.test(type) ? 'a web page answered instead of the API (a sign-in page of a proxy?); check the instance URL' : undefined,
    );
  }

  /**
   * Calls a declared route (src/resources/<resource>/resource.ts): `call('PUT /projects/{project}/badges/{badge_id}', { project,
   * badge_id, name })`. Path parameters are expanded, each encoded as one segment; the other parameters (undefined
   * ones dropped) are the query of a GET, HEAD or DELETE and the JSON body otherwise; a `body` among the options is
   * sent as it is (a DELETE with a body). The options go with the request: `{ retry: 'never' }` for a write that
   * must not be sent twice, headers …
   */
  async call<T = unknown, const R extends string = string>(route: R, ...[params, options = {}]: CallArgs<R>): Promise<T> {
    return (await this.request<T>({ ...options, ...routeRequest(route, params ?? {}, options.body) })).data;
  }

  /** call(), answering the whole response: the status (201 or 202) and the headers (x-total) beside the data. */
  async callResponse<T = unknown, const R extends string = string>(route: R, ...[params, options = {}]: CallArgs<R>): Promise<ApiResponse<T>> {
    return this.request<T>({ ...options, ...routeRequest(route, params ?? {}, options.body) });
  }

  /**
   * call() for an answer that is not JSON: the raw response, its body unread (a download's bytes, a CSV, a file's
   * text, or a HEAD answer's headers). The caller reads or dumps the body.
   */
  async open<const R extends string = string>(route: R, ...[params, options = {}]: CallArgs<R>): Promise<HttpResponse> {
    return this.send({ ...options, ...routeRequest(route, params ?? {}, options.body) });
  }

  /**
   * A paginated list, fetched as contract §6 describes (one page, --limit, or --all with concurrent pages). Takes a
   * path and its query, or a declared GET route and its parameters (as call() does).
   */
  list<T = Record<string, unknown>, const R extends string = string>(pathOrRoute: R, query: RouteParamNames<R> extends never ? Query | Record<string, unknown> : RouteParams<R>, options: ListOptions): ListResult<T> {
    if (!isRoute(pathOrRoute)) return new ListResult<T>(this, pathOrRoute, query as Query, options);
    const { method, path, rest } = expandRoute(pathOrRoute, query);
    if (method !== 'GET') throw new Error(`list() needs a GET route, got ${pathOrRoute}`);
    return new ListResult<T>(this, path, rest as Query, options);
  }

  private async errorFrom(response: HttpResponse, method: string, url: string): Promise<ApiError> {
    const parsed = await readJson(response).catch(() => undefined);
    const body = parsed?.kind === 'json' ? parsed.value : parsed?.text;
    const path = this.displayPath(url);
    const html = typeof body === 'string' && (/html/i.test(response.header('content-type') ?? '') || /^\s*<(!doctype|html)/i.test(body));
    let message = html ? `${errorMessageFromBody(undefined, response.status)} (HTML error page)` : errorMessageFromBody(body, response.status);
    const jobToken = this.connection.tokenSource === 'ci_job' && (response.status === 401 || response.status === 403);
    if (jobToken) message += ' (CI job token)';
    const longWait = tooLongWait(response.status, response.header, Date.now());
    if (longWait) message += `: ${longWait.message}`;
    const hint = jobToken ? JOB_TOKEN_HINT : (longWait?.hint ?? hintForStatus(response.status, body, path));
    const error = new ApiError(message, response.status, method, path, response.header('x-request-id'), hint, body);
    if (response.status === 429) error.serverWaitMs = serverWaitMs(response.header, Date.now());
    return error;
  }

  /** A URL as errors show it: the path below the API base, without the query. */
  private displayPath(url: string): string {
    return splitUrl(url).path.replace(/\?.*/, '').replace(splitUrl(this.connection.baseUrl).path, '') || '/';
  }
}

/**
 * The request of a declared route, as call() sends it: the path parameters expanded, each one encoded segment; the
 * other parameters (undefined ones dropped) the query of a GET, HEAD or DELETE and the JSON body otherwise. A `body`
 * given apart is sent as it is, whatever the method: `DELETE /admin/token` takes the token in its body, never in the
 * URL. For the answers read as they arrive (api.send(), the lower door), the request is built here all the same.
 */
export function routeRequest(route: string, params: Record<string, unknown> = {}, body?: unknown): Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'> {
  const { method, path, rest } = expandRoute(route, params);
  const given = Object.keys(rest).length ? rest : undefined;
  const inQuery = method === 'GET' || method === 'HEAD' || method === 'DELETE';
  return { method, path, query: inQuery ? (given as Query | undefined) : undefined, body: body !== undefined ? body : inQuery ? undefined : given };
}

/** How many redirects a GET or HEAD follows. */
const MAX_REDIRECTS = 5;

/**
 * A redirect (or other 1xx/3xx answer) that was not followed: writes are never sent again elsewhere (the body and
 * the token would go to whatever the Location names), a JSON answer is never taken from another origin, and a GET
 * stops after MAX_REDIRECTS. Names the Location.
 */
function unfollowed(status: number, method: string, path: string, location: string | undefined, from: string, why: 'write' | 'elsewhere' | 'loop'): CliError {
  const to = location ? redactUrl(new URL(location, from).toString()) : undefined;
  const moved = 'if the instance moved (or wants https://), set its URL to where it redirects: forgectl auth login --url URL';
  const [what, hint] = !to && why !== 'loop'
    ? [`${status} without a Location`, undefined]
    : {
        loop: [`more than ${MAX_REDIRECTS} redirects (the last to ${to})`, 'the service redirects in a loop; check the instance URL'],
        elsewhere: [`a redirect (${status}) to another origin, ${to}: what it answers is not this instance's data`, moved],
        write: [`a redirect (${status}) to ${to}, which is not followed for ${method}`, `nothing was changed; ${moved}`],
      }[why];
  return new CliError(`the server answered ${what} (${method} ${path} → ${status})`, ExitCode.server, hint);
}

/** Nesting deeper than any real record: an answer nested deeper is refused as malformed. */
const MAX_JSON_DEPTH = 1000;

/**
 * A response body read as JSON: empty, parsed (with its text), malformed JSON (`why`, when it is more than a syntax
 * error), or something else (with its content type). A byte order mark before JSON is left out, as JSON's RFC lets a
 * reader do and jq does.
 */
export async function readJson(response: HttpResponse): Promise<JsonBody> {
  return jsonOf(await response.text(), contentType(response));
}

type JsonBody = { kind: 'json'; value: unknown; text: string } | { kind: 'malformed' | 'other'; text: string; type: string; why?: string };

/** A content type that says JSON. */
const JSON_TYPE = /[/+]json$/i;

/** An answer's content type, without its parameters. */
function contentType(response: { header(name: string): string | undefined }): string {
  return (response.header('content-type') ?? '').split(';')[0].trim();
}

/** readJson() of a body's text and content type. */
function jsonOf(text: string, type: string): JsonBody {
  if (!text.trim()) return { kind: 'json', value: undefined, text: '' };
  const declared = JSON_TYPE.test(type);
  if (!declared && !(type === '' && /^[[{]/.test(text.trimStart()))) return { kind: 'other', text, type };
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { kind: 'malformed', text, type };
  }
  // Parsing follows any nesting in memory proportional to the text (V8's parser keeps no call stack), but writing the
  // value again recurses: a value nested past any real record's depth is refused before anything else reads it.
  if (deeperThan(value, MAX_JSON_DEPTH)) return { kind: 'malformed', text, type, why: `JSON nested deeper than ${MAX_JSON_DEPTH.toLocaleString('en-US')} levels` };
  return { kind: 'json', value, text: json };
}

/** Whether arrays and objects nest deeper than `limit` in a parsed value (followed with stacks of its own). */
function deeperThan(value: unknown, limit: number): boolean {
  const containers: object[] = [];
  const depths: number[] = [];
  const visit = (item: unknown, depth: number): void => {
    if (item !== null && typeof item === 'object') {
      containers.push(item);
      depths.push(depth);
    }
  };
  visit(value, 1);
  while (containers.length) {
    const container = containers.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    if (Array.isArray(container)) for (const item of container) visit(item, depth + 1);
    else for (const key in container) visit(container[key], depth + 1);
  }
  return false;
}
