import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Context } from '../../cli/command.js';
import { ConfigError, UsageError } from '../../errors.js';
import { readRegularFile } from '../../files.js';
import { isLoopbackHost } from '../../http/url.js';
import { SESSION_HEADER, type ToolServer } from './server.js';

/** How a client of `--http` proves it may act with the server's token: the bearer secret, and where it was shown. */
export interface HttpSecret {
  secret: string;
  /** The file it was read from; undefined when it was made at start (and printed once). */
  file?: string;
}

/**
 * The bearer secret every HTTP request must carry: read from a file only its owner can read (--secret-file), or made
 * at start (32 random bytes) and printed once on stderr, as Jupyter does with its token.
 */
export function httpSecret(file: string | undefined): HttpSecret {
  if (file === undefined) return { secret: randomBytes(32).toString('base64url') };
  const secret = readRegularFile(file, 4096).trim();
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && mode & 0o077) throw new ConfigError(`--secret-file ${file} is readable by others (mode ${mode.toString(8).padStart(4, '0')})`, `run: chmod 600 ${file}`);
  if (secret.length < 16 || /\s/.test(secret)) throw new UsageError(`--secret-file ${file}: the secret must be one word of at least 16 characters`, 'for example: head -c 32 /dev/urandom | base64 > FILE');
  return { secret, file };
}

/** The streamable HTTP transport on a node:http server, one MCP endpoint at /mcp. */
export async function serveHttp(server: ToolServer, listen: { host: string; port: number }, secret: HttpSecret, ctx: Context): Promise<undefined> {
  const { createMcpHandler } = await import('@modelcontextprotocol/server');
  const handler = createMcpHandler((request) => server.create(request), { onerror: (error) => ctx.io.warn(`mcp: ${error.message}`) });
  const http = createServer((request, response) => {
    void answer(handler.fetch, request, response, listen, secret.secret).catch((error: unknown) => {
      ctx.io.warn(`mcp: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(new UsageError(`cannot listen on ${listen.host}:${listen.port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`)));
    http.listen(listen.port, listen.host, resolve);
  });
  const address = http.address() as { port: number };
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  // Always, even with --quiet: without the address and the secret no client can connect.
  const shown = secret.file ? `the secret in ${secret.file}` : secret.secret;
  ctx.io.streams.stderr.write(`forgectl mcp listening on http://${host}:${address.port}/mcp\nclients send the header: Authorization: Bearer ${shown}\n`);
  await ctx.interrupted;
  await handler.close();
  await new Promise((resolve) => http.close(resolve));
  http.closeAllConnections();
  return undefined;
}

/** Whether an Authorization header carries the secret: compared in constant time (as SHA-256 digests of equal length). */
function authorized(header: string | undefined, secret: string): boolean {
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/** The host name of an Origin header; undefined for `null` (a sandboxed page or a file) and for what is no URL. */
function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).hostname || undefined;
  } catch {
    return undefined;
  }
}

/**
 * One HTTP exchange. Requests from a web page (an Origin that is not loopback) and requests for another host name
 * (DNS rebinding) are refused, as the protocol asks of local servers; then every request must carry the bearer
 * secret (401 without it).
 */
async function answer(fetch: (request: Request) => Promise<Response>, request: IncomingMessage, response: ServerResponse, listen: { host: string }, secret: string): Promise<void> {
  const refuse = (status: number, text: string, headers: Record<string, string> = {}) => void response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`${text}\n`);
  let url: URL;
  try {
    url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  } catch {
    return refuse(400, 'bad request: the Host header or the path is not a URL');
  }
  if (url.pathname !== '/mcp') return refuse(404, 'not found: the MCP endpoint is /mcp');
  const origin = request.headers.origin;
  const fromOrigin = origin === undefined ? undefined : originHost(origin);
  if ((origin !== undefined && (fromOrigin === undefined || !isLoopbackHost(fromOrigin))) || (isLoopbackHost(listen.host) && !isLoopbackHost(url.hostname))) {
    return refuse(403, 'forbidden: requests from other origins or host names are refused');
  }
  if (!authorized(request.headers.authorization, secret)) {
    return refuse(401, 'unauthorized: send the header Authorization: Bearer SECRET (mcp serve printed it when it started)', { 'www-authenticate': 'Bearer realm="forgectl mcp"' });
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The handler keeps no sessions; a session id given here (at initialize, and sent back by the client after it)
  // tells this server's clients apart, so that one's notifications/cancelled cannot stop another's call.
  const session = headers.get(SESSION_HEADER) ?? randomUUID();
  headers.set(SESSION_HEADER, session);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : (Readable.toWeb(request) as ReadableStream);
  // A client that goes away before its answer cancels its call, as notifications/cancelled would.
  const gone = new AbortController();
  response.once('close', () => response.writableFinished || gone.abort());
  const reply = await fetch(new Request(url, { method: request.method, headers, body, duplex: 'half', signal: gone.signal } as RequestInit));
  response.writeHead(reply.status, { ...Object.fromEntries(reply.headers), [SESSION_HEADER]: session });
  if (reply.body) {
    for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) response.write(chunk);
  }
  response.end();
}
