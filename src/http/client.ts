import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileProblem } from '../files.js';
import { CliError, ConfigError, NetworkError } from '../errors.js';
import { classifyNetworkError } from './failures.js';
import { redactHeaders, redactUrl } from './redact.js';
import type { RateGate } from './rate-gate.js';
import { MAX_WAIT_MS, mayRetry, retryDelayMs, type RetryMode } from './retry.js';
import type { Dispatcher } from 'undici';
import { isLoopbackHost, splitUrl } from './url.js';

export { splitUrl };

export interface HttpClientOptions {
  caFile?: string;
  insecure?: boolean;
  timeoutMs: number;
  retries: number;
  env: Record<string, string | undefined>;
  userAgent: string;
  /** Verbose log sink (stderr); absent when not verbose. */
  log?: (line: string) => void;
  /**
   * The number that tags a request's verbose lines (`[3] > GET …`, `[3] < 403 …`): concurrent requests (a fleet, list
   * pages fetched ahead) interleave theirs. Shared by every client of a run so that no two requests share one; each
   * client counts on its own without it.
   */
  requestNumber?: () => number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** The run's shared rate budget (fleet operations): every attempt waits for it, every answer feeds it. */
  gate?: RateGate;
  /** Why no attempt may be sent any more (the run was interrupted), checked before each one. */
  stopped?: () => Error | undefined;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /**
   * 'never' sends once (token rotation; again only after a 429, which the server did not act on), and its answer is read with headers up to LARGE_HEADERS: it may hold
   * the only copy of a secret; 'auto' follows the policy of contract §7; 'repeatable' retries as a GET; 'caller' sends
   * once, a 429 included: the caller waits it out itself (webhook resends, paced to the service's limit).
   */
  retry?: RetryMode;
  /**
   * Read the whole body before returning (JSON answers), always or when the answer's headers say so: a connection
   * lost mid-body is then retried like any failure.
   */
  read?: boolean | ((header: (name: string) => string | undefined) => boolean);
}

/**
 * What callers read of a response body: a stream of chunks (downloads), the whole body as bytes, or nothing (dump:
 * read and dropped, so that the connection can be used again). undici's body, as its request() answers it.
 */
export interface ResponseBody extends Readable {
  bytes(): Promise<Uint8Array>;
  arrayBuffer(): Promise<ArrayBuffer>;
  dump(): Promise<void>;
}

/** An answer as undici's request() gives it. */
interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | undefined;
  body: ResponseBody;
  text(): Promise<string>;
  buffer(): Promise<Buffer>;
}

/** HTTPS_PROXY, HTTP_PROXY and NO_PROXY as undici's proxy agent reads them: the lower-case name first, even when empty. */
export function proxySettings(env: Record<string, string | undefined>): { http: string; https: string; no: string } {
  return { http: env.http_proxy ?? env.HTTP_PROXY ?? '', https: env.https_proxy ?? env.HTTPS_PROXY ?? '', no: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/**
 * The variable whose proxy carries requests of this scheme, as undici's proxy agent picks it: an https request uses
 * https_proxy or HTTPS_PROXY (the first one set), and the http proxy when that is empty; none when neither is set.
 */
export function proxyVariable(protocol: string, env: Record<string, string | undefined>): { name: string; value: string } | undefined {
  const pick = (names: string[]) => {
    const name = names.find((candidate) => env[candidate] !== undefined);
    return name && env[name] ? { name, value: env[name] } : undefined;
  };
  return (protocol === 'https:' ? pick(['https_proxy', 'HTTPS_PROXY']) : undefined) ?? pick(['http_proxy', 'HTTP_PROXY']);
}

/** The proxy a request to this target goes through (credentials masked); none for loopback, or a host NO_PROXY sends direct. */
export function proxyFor(target: { host: string; protocol: string }, env: Record<string, string | undefined>): string | undefined {
  const proxy = proxyVariable(target.protocol, env);
  if (!proxy || isLoopbackHost(target.host.replace(/:\d*$/, ''))) return undefined;
  return noProxySendsDirect(target, proxySettings(env).no) ? undefined : redactUrl(proxy.value);
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** NO_PROXY's entries as undici's proxy agent splits the value: at each comma or white space. */
export const noProxyEntries = (noProxy: string): string[] => noProxy.split(/[,\s]/).filter(Boolean);

/**
 * Whether NO_PROXY sends a request to this origin (URL host, with its port if any) direct. The rule of undici's
 * EnvHttpProxyAgent (node_modules/undici/lib/dispatcher/env-http-proxy-agent.js: #getProxyAgentForUrl, #shouldProxy,
 * #parseNoProxy), which decides and offers no public way to ask it: `*` counts only as the whole value; entries are
 * split at each comma or space; NAME:PORT matches that port only (the scheme's default when the URL names none); a
 * name matches itself and its subdomains, `.name` and `*.name` meaning the same; IPv6 addresses keep their brackets.
 */
export function noProxySendsDirect(target: { host: string; protocol: string }, noProxy: string): boolean {
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(/:(\d*)$/.exec(target.host)?.[1] ?? '', 10) || DEFAULT_PORTS[target.protocol] || 0;
  const entries = noProxyEntries(noProxy).map((entry) => {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    return { hostname: (parsed ? parsed[1] : entry).replace(/^\*?\./, '').toLowerCase(), port: parsed ? Number.parseInt(parsed[2], 10) : 0 };
  });
  if (!entries.length) return false;
  if (noProxy === '*') return true;
  return entries.some((entry) => (!entry.port || entry.port === port) && (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)));
}

/**
 * The header block a request sent once may answer with (Node's and undici's default is 16 KiB): a rotation's answer
 * is the only copy of the new token, and a proxy or load balancer that adds headers must not make it unreadable.
 * Bounded all the same: memory follows what a server may make us hold.
 */
export const LARGE_HEADERS = 1 << 20;

/**
 * HTTP with keep-alive connections (proxy-aware, custom CA), timeouts and the retry policy, over undici (loaded on
 * first use): an Agent for hosts reached directly, its EnvHttpProxyAgent for the rest. Every request goes this way:
 * JSON answers, list pages and streamed downloads, --verbose or not.
 */
export class HttpClient {
  /** For loopback targets: never through a proxy (the token would cross it, in clear text over http). */
  private direct?: Dispatcher;
  private proxied?: Dispatcher;
  /** The same two, reading headers up to LARGE_HEADERS: for requests sent once (retry 'never'). */
  private directLarge?: Dispatcher;
  private proxiedLarge?: Dispatcher;
  /** Set by close(): a request still running (a page fetched ahead of a list that ended) is not sent again. */
  private closed = false;
  private undici?: typeof import('undici');
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly requestNumber: () => number;

  constructor(private readonly options: HttpClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    let requests = 0;
    this.requestNumber = options.requestNumber ?? (() => ++requests);
  }

  /** The verbose log of one request (its every attempt): each line tagged with the request's number. */
  private requestLog(): ((line: string) => void) | undefined {
    const { log } = this.options;
    if (!log) return undefined;
    const tag = `[${this.requestNumber()}]`;
    return (line) => log(`${tag} ${line}`);
  }

  private tls?: { ca?: string[]; rejectUnauthorized?: boolean };

  private tlsOptions(): { ca?: string[]; rejectUnauthorized?: boolean } {
    if (this.tls) return this.tls;
    const { env } = this.options;
    const tls: { ca?: string[]; rejectUnauthorized?: boolean } = {};
    if (this.options.caFile) {
      const extra = readCaFile(this.options.caFile);
      const nodeExtra = env.NODE_EXTRA_CA_CERTS ? safeRead(env.NODE_EXTRA_CA_CERTS) : undefined;
      // Loaded here only: node:tls (and crypto with it) costs start-up that plain-http and default-CA runs skip.
      const { rootCertificates } = process.getBuiltinModule('node:tls');
      tls.ca = [...rootCertificates, ...(nodeExtra ? [nodeExtra] : []), extra];
    }
    if (this.options.insecure) tls.rejectUnauthorized = false;
    this.tls = tls;
    return tls;
  }

  private proxies(): { http: string; https: string; no: string } {
    return proxySettings(this.options.env);
  }

  private async dispatcherFor(target: { hostname: string }, largeHeaders: boolean): Promise<Dispatcher> {
    // Loaded on first use (help and usage errors need none of it). undici is CommonJS: its exports are the module's
    // default export, bundled or not (its types declare them as named exports).
    const { Agent, EnvHttpProxyAgent } = (this.undici ??= (await import('undici')).default as unknown as typeof import('undici'));
    const sizes = largeHeaders ? { maxHeaderSize: LARGE_HEADERS } : {};
    if (isLoopbackHost(target.hostname)) {
      const make = () => new Agent({ connect: { ...this.tlsOptions(), timeout: this.options.timeoutMs }, keepAliveTimeout: 10_000, ...sizes });
      return largeHeaders ? (this.directLarge ??= make()) : (this.direct ??= make());
    }
    const make = () => {
      const tls = this.tlsOptions();
      const proxies = this.proxies();
      return new EnvHttpProxyAgent({
        httpProxy: proxies.http,
        httpsProxy: proxies.https,
        noProxy: proxies.no,
        connect: { ...tls, timeout: this.options.timeoutMs },
        requestTls: tls,
        keepAliveTimeout: 10_000,
        ...sizes,
      } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
    };
    return largeHeaders ? (this.proxiedLarge ??= make()) : (this.proxied ??= make());
  }

  /** The proxy a request to this target goes through (credentials masked), for error messages. */
  private proxyFor(target: { host: string; protocol: string }): string | undefined {
    return proxyFor(target, this.options.env);
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const method = request.method.toUpperCase();
    const sentOnce = request.retry === 'never';
    const retries = request.retry === 'caller' ? 0 : this.options.retries;
    const retryAs = request.retry === 'repeatable' ? 'GET' : method;
    // A request sent once is sent again only after a 429: a refusal, which the server provably did not act on.
    const retryStatus = (status: number): boolean => (sentOnce ? status === 429 : mayRetry(retryAs, { status }));
    const url = splitUrl(request.url);
    const path = url.path.replace(/\?.*/, '');
    const headers = { 'user-agent': this.options.userAgent, accept: 'application/json', ...request.headers };
    const largeHeaders = sentOnce;
    const failed = (error: unknown) => classifyNetworkError(error, url, this.options.timeoutMs, {
      proxy: this.proxyFor(url), headerLimit: largeHeaders ? LARGE_HEADERS : undefined, extraCa: this.options.env.NODE_EXTRA_CA_CERTS || undefined,
    });
    const gate = this.options.gate;
    const log = this.requestLog();
    const first = this.now();
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new Error('the HTTP client was closed: the run has ended');
      await gate?.wait();
      this.checkNotStopped();
      const started = this.now();
      if (log) {
        log(`> ${method} ${redactUrl(request.url)}`);
        for (const [name, value] of Object.entries(redactHeaders(headers))) log(`> ${name}: ${value}`);
      }
      let response: Answer;
      let data: Buffer | undefined;
      try {
        response = await (await this.dispatcherFor(url, largeHeaders)).request({
          origin: url.origin,
          path: url.path,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: request.body,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        });
        log?.(`< ${response.statusCode} (${this.now() - started} ms)`);
        gate?.observe(response.statusCode, (name) => headerValue(response.headers, name));
        const retrying = attempt < retries && retryStatus(response.statusCode);
        // The whole body is read here when asked, so that a connection lost mid-body is retried like any failure.
        const headerOf = (name: string) => headerValue(response.headers, name);
        if (!retrying && (request.read === true || (typeof request.read === 'function' && request.read(headerOf)))) {
          data = bufferOf(await response.body.bytes());
        }
      } catch (error) {
        if (error instanceof CliError) throw error;
        const failure = failed(error);
        log?.(`< ${failure.message} (${this.now() - started} ms)`);
        if (attempt < retries && !sentOnce && mayRetry(retryAs, failure) && !this.closed) {
          const wait = retryDelayMs(attempt, () => undefined, this.now());
          log?.(`retrying in ${(wait / 1000).toFixed(1)}s (attempt ${attempt + 2} of ${retries + 1})`);
          await this.sleep(wait);
          continue;
        }
        // The time the retries took is no secret: "within 1s" alone hides the 9 s the user waited.
        const tries = attempt > 0 ? ` (${attempt + 1} attempts in ${Math.round((this.now() - first) / 1000)} s; --retries sets how many)` : '';
        throw new NetworkError(failure.message + tries, method, path, failure.sentMaybe, failure.code, failure.hint);
      }
      const wrapped = wrapResponse(response, data, (error) => {
        const failure = failed(error);
        return new NetworkError(failure.message, method, path, true, failure.code, failure.hint);
      });
      if (data === undefined && attempt < retries && retryStatus(response.statusCode)) {
        const wait = retryDelayMs(attempt, wrapped.header, this.now(), Math.random, response.statusCode);
        if (wait <= MAX_WAIT_MS) {
          // A 429 limits the caller, not this request: with a shared gate every request waits (gate.wait above),
          // from now on, not once this answer's body has been read.
          const held = response.statusCode === 429 && gate?.isActive;
          if (held) gate.hold(wait);
          await response.body.dump().catch(() => undefined);
          log?.(`retrying in ${(wait / 1000).toFixed(1)}s (attempt ${attempt + 2} of ${retries + 1})`);
          if (!held) await this.sleep(wait);
          continue;
        }
      }
      return wrapped;
    }
  }

  /** Throws why no further attempt may be sent (the run was interrupted), before one is. */
  private checkNotStopped(): void {
    const stop = this.options.stopped?.();
    if (stop) throw stop;
  }

  async close(): Promise<void> {
    this.closed = true;
    const dispatchers = [this.direct, this.proxied, this.directLarge, this.proxiedLarge];
    this.direct = this.proxied = this.directLarge = this.proxiedLarge = undefined;
    await Promise.all(dispatchers.map((dispatcher) => dispatcher?.destroy().catch(() => undefined)));
  }
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The CA file of --ca-file / ca_file, checked: a file without a PEM certificate would make every TLS connection
 * fail with an OpenSSL message about the connection instead of the file.
 */
function readCaFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the CA file ${path}: ${fileProblem(error)}`);
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const { X509Certificate } = process.getBuiltinModule('node:crypto');
  try {
    if (!blocks.length) throw new Error('no PEM certificate in it');
    for (const block of blocks) new X509Certificate(block);
  } catch (error) {
    const reason = error instanceof Error && error.message === 'no PEM certificate in it' ? error.message : 'a certificate in it is damaged';
    throw new ConfigError(`cannot use the CA file ${path}: ${reason}`, 'give a PEM file with the CA certificate (-----BEGIN CERTIFICATE-----)');
  }
  return text;
}

/** Bytes as a Buffer, without copying them. */
function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function headerValue(headers: Answer['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function wrapResponse(response: Answer, data: Buffer | undefined, bodyFailure: (error: unknown) => Error): HttpResponse {
  const header = (name: string) => headerValue(response.headers, name);
  const read = async (): Promise<Buffer> => {
    if (data !== undefined) return data;
    try {
      return bufferOf(await response.body.bytes());
    } catch (error) {
      throw bodyFailure(error);
    }
  };
  return { status: response.statusCode, headers: response.headers, header, body: response.body, text: async () => (await read()).toString('utf8'), buffer: read };
}
