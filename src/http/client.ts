import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ConfigError, NetworkError } from '../errors.js';
import type { Env } from '../config/paths.js';
import { redactHeaders, redactUrl } from './redact.js';
import { MAX_WAIT_MS, mayRetry, retryDelayMs, type RetryMode } from './retry.js';
import { EnvHttpProxyAgent, type Dispatcher } from './undici.js';

export interface HttpClientOptions {
  caFile?: string;
  insecure?: boolean;
  timeoutMs: number;
  retries: number;
  env: Env;
  userAgent: string;
  /** Verbose log sink (stderr); absent when not verbose. */
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** 'never' sends exactly once (token rotation); 'auto' follows the policy of contract §7. */
  retry?: RetryMode;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | undefined;
  body: Dispatcher.ResponseData['body'];
  text(): Promise<string>;
  buffer(): Promise<Buffer>;
}

const BEFORE_SEND = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|EPROTO/;

/** HTTP over undici: one keep-alive dispatcher (proxy-aware, custom CA), timeouts and the retry policy. */
export class HttpClient {
  private dispatcher?: Dispatcher;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: HttpClientOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
  }

  private getDispatcher(): Dispatcher {
    if (this.dispatcher) return this.dispatcher;
    const { env } = this.options;
    const tls: { ca?: string[]; rejectUnauthorized?: boolean } = {};
    if (this.options.caFile) {
      let extra: string;
      try {
        extra = readFileSync(this.options.caFile, 'utf8');
      } catch (error) {
        throw new ConfigError(`cannot read CA file ${this.options.caFile}: ${(error as NodeJS.ErrnoException).code ?? error}`);
      }
      const nodeExtra = env.NODE_EXTRA_CA_CERTS ? safeRead(env.NODE_EXTRA_CA_CERTS) : undefined;
      // Loaded here only: node:tls (and crypto with it) costs start-up that plain-http and default-CA runs skip.
      const { rootCertificates } = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
      tls.ca = [...rootCertificates, ...(nodeExtra ? [nodeExtra] : []), extra];
    }
    if (this.options.insecure) tls.rejectUnauthorized = false;
    this.dispatcher = new EnvHttpProxyAgent({
      httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? '',
      httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? '',
      noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
      connect: { ...tls, timeout: this.options.timeoutMs },
      requestTls: tls,
      keepAliveTimeout: 10_000,
    } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
    return this.dispatcher;
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const method = request.method.toUpperCase();
    const retries = request.retry === 'never' ? 0 : this.options.retries;
    const url = splitUrl(request.url);
    const headers = { 'user-agent': this.options.userAgent, accept: 'application/json', ...request.headers };
    for (let attempt = 0; ; attempt++) {
      const started = this.now();
      this.options.log?.(`> ${method} ${redactUrl(request.url)}`);
      if (this.options.log) {
        for (const [name, value] of Object.entries(redactHeaders(headers))) this.options.log(`> ${name}: ${value}`);
      }
      const dispatcher = this.getDispatcher();
      let response: Dispatcher.ResponseData;
      try {
        response = await dispatcher.request({
          origin: url.origin,
          path: url.path,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: request.body,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        });
      } catch (error) {
        const failure = classifyNetworkError(error, url, this.options.timeoutMs);
        this.options.log?.(`< ${failure.message} (${this.now() - started} ms)`);
        if (attempt < retries && mayRetry(method, failure)) {
          const wait = retryDelayMs(attempt, () => undefined, this.now());
          this.options.log?.(`  retrying in ${(wait / 1000).toFixed(1)}s (attempt ${attempt + 2} of ${retries + 1})`);
          await this.sleep(wait);
          continue;
        }
        throw new NetworkError(failure.message, method, url.path.replace(/\?.*/, ''), failure.sentMaybe, failure.code);
      }
      const wrapped = wrapResponse(response);
      this.options.log?.(`< ${response.statusCode} (${this.now() - started} ms)`);
      if (attempt < retries && mayRetry(method, { status: response.statusCode })) {
        const wait = retryDelayMs(attempt, wrapped.header, this.now(), Math.random, response.statusCode);
        if (wait <= MAX_WAIT_MS) {
          await response.body.dump().catch(() => undefined);
          this.options.log?.(`  retrying in ${(wait / 1000).toFixed(1)}s (attempt ${attempt + 2} of ${retries + 1})`);
          await this.sleep(wait);
          continue;
        }
      }
      return wrapped;
    }
  }

  async close(): Promise<void> {
    const dispatcher = this.dispatcher;
    this.dispatcher = undefined;
    await dispatcher?.destroy().catch(() => undefined);
  }
}

/**
 * An absolute URL split into origin and path (with query) without normalising the path: a WHATWG URL turns a
 * `%2E%2E` segment into `..` and removes it with the segment before, so `/projects/%2E%2E/badges` would become
 * `/badges`. Path parameters are encoded on purpose; the path goes out exactly as built.
 */
export function splitUrl(url: string): { origin: string; path: string; host: string; hostname: string; protocol: string } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^#]*)/i.exec(url);
  if (!match) throw new TypeError(`not an absolute URL: ${url}`);
  const origin = new URL(match[1]);
  const rest = match[2];
  return { origin: origin.origin, host: origin.host, hostname: origin.hostname, protocol: origin.protocol, path: rest.startsWith('/') ? rest : `/${rest}` };
}

function safeRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function wrapResponse(response: Dispatcher.ResponseData): HttpResponse {
  const header = (name: string): string | undefined => {
    const value = response.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return {
    status: response.statusCode,
    headers: response.headers,
    header,
    body: response.body,
    text: () => response.body.text(),
    buffer: async () => Buffer.from(await response.body.arrayBuffer()),
  };
}

interface NetworkFailure {
  message: string;
  code?: string;
  sentMaybe: boolean;
  permanent: boolean;
}

export function classifyNetworkError(error: unknown, url: { host: string; hostname: string }, timeoutMs: number): NetworkFailure {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.code && err.code !== 'UND_ERR_SOCKET' ? err.code : (err.cause?.code ?? err.code);
  const host = url.host;
  if (code && BEFORE_SEND.has(code)) {
    const text: Record<string, string> = {
      ECONNREFUSED: `connection refused by ${host}`,
      ENOTFOUND: `cannot resolve host ${url.hostname}`,
      EAI_AGAIN: `cannot resolve host ${url.hostname} (DNS temporarily unavailable)`,
      UND_ERR_CONNECT_TIMEOUT: `could not connect to ${host} within ${timeoutMs / 1000}s`,
    };
    return { message: text[code] ?? `cannot connect to ${host} (${code})`, code, sentMaybe: false, permanent: code === 'ENOTFOUND' };
  }
  if (code && TLS_CODES.test(code)) {
    return { message: `TLS error talking to ${host}: ${err.message || code} (${code})`, code, sentMaybe: false, permanent: true };
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { message: `no response from ${host} within ${timeoutMs / 1000}s`, code, sentMaybe: true, permanent: false };
  }
  const message = err.message || String(error);
  return { message: `connection to ${host} failed: ${message}${code ? ` (${code})` : ''}`, code, sentMaybe: true, permanent: false };
}
