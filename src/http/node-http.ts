import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';

/**
 * What callers read of a response body, whichever client fetched it: a stream of chunks (downloads), the whole body
 * as bytes, or nothing (dump: read and dropped, so that the connection can be used again).
 */
export interface ResponseBody extends Readable {
  bytes(): Promise<Uint8Array>;
  arrayBuffer(): Promise<ArrayBuffer>;
  dump(): Promise<void>;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: ResponseBody;
}

/**
 * The error codes undici gives its timeouts, given to the same timeouts here so that a failure reads the same
 * whichever client met it (src/http/failures.ts): connecting, waiting for the answer, or the answer stopping.
 */
export const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';
export const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
export const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';

/**
 * Node's own HTTP client, for connections without a proxy: keep-alive agents (one for http, one for https with the
 * TLS options of the profile), the same timeout for connecting, for the answer's headers and between chunks of its
 * body. It costs a request less CPU than undici (it parses in native code) and nothing to load at start-up; undici
 * stays the client of proxied connections and of streamed downloads.
 */
export class NodeHttp {
  private agents: { http?: HttpAgent; https?: HttpsAgent } = {};

  constructor(
    private readonly tls: () => { ca?: string[]; rejectUnauthorized?: boolean },
    private readonly timeoutMs: number,
  ) {}

  request(url: { protocol: string; hostname: string; host: string; path: string }, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
    const https = url.protocol === 'https:';
    const module = https ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
    const agent = https
      ? (this.agents.https ??= new (process.getBuiltinModule('node:https').Agent)({ keepAlive: true, ...this.tls() }))
      : (this.agents.http ??= new (process.getBuiltinModule('node:http').Agent)({ keepAlive: true }));
    const port = /:(\d+)$/.exec(url.host)?.[1];
    return new Promise<Answer>((resolve, reject) => {
      let response: IncomingMessage | undefined;
      // Node frames a body without a length in chunks only for methods that usually carry one: a DELETE's body
      // (DELETE /admin/token) would go unframed, and the server would read none.
      const framed = body === undefined || Object.keys(headers).some((name) => name.toLowerCase() === 'content-length') ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
      const request = module.request({ hostname: url.hostname.replace(/^\[|\]$/g, ''), port, path: url.path, method, headers: framed, agent, timeout: this.timeoutMs });
      request.on('timeout', () => {
        const code = response ? BODY_TIMEOUT : !request.socket || request.socket.connecting ? CONNECT_TIMEOUT : HEADERS_TIMEOUT;
        const error = Object.assign(new Error(`timed out after ${this.timeoutMs} ms`), { code });
        if (response) response.destroy(error);
        else request.destroy(error);
      });
      request.on('error', (error) => {
        if (!response) reject(error);
      });
      request.on('response', (answer: IncomingMessage) => {
        response = answer;
        resolve({ statusCode: answer.statusCode ?? 0, headers: answer.headers, body: bodyOf(answer) });
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents.http?.destroy();
    this.agents.https?.destroy();
    this.agents = {};
  }
}

/** The whole body, or the error that cut it short (a connection closed before its end is one). */
function readAll(answer: IncomingMessage): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    answer.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    answer.on('error', reject);
    answer.on('close', () => {
      if (!answer.complete) reject(Object.assign(new Error('the connection closed before the end of the answer'), { code: 'ECONNRESET' }));
    });
  });
}

/** The response as a ResponseBody (it is already a stream of chunks). */
function bodyOf(answer: IncomingMessage): ResponseBody {
  let read: Promise<Buffer> | undefined;
  const whole = () => (read ??= readAll(answer));
  return Object.assign(answer, {
    bytes: whole,
    arrayBuffer: async () => {
      const bytes = await whole();
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    },
    dump: async () => {
      await whole().catch(() => undefined);
    },
  });
}
