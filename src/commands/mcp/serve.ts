import { statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { defineCommand, type Context, type GivenGlobals, type GlobalOptions } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../http/url.js';
import { buildCatalogue } from './catalogue.js';
import { selection, toolsetOptions, type ToolsetOpts } from './options.js';
import { ToolServer } from './server.js';

interface Opts extends ToolsetOpts {
  http?: { host: string; port: number };
  allowRemote?: boolean;
  root?: string;
}

/** --root: a folder that exists, as an absolute path. */
function parseRoot(value: string): string {
  const folder = resolve(value);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--root ${value}: no such folder`);
  return folder;
}

/** HOST:PORT (or :PORT, or PORT) for --http; the host defaults to loopback. */
function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]*):)?(\d+)$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new UsageError(`--http must be HOST:PORT such as 127.0.0.1:8808 (PORT 0: any free port), got "${value}"`);
  return { host: (match[1] || '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

/** The global options of this run that every tool call runs with (the same profile, instance and connection settings). */
function connectionGlobals({ profile, server, timeout, retries, caFile, insecure }: GlobalOptions): GivenGlobals {
  return { profile, server, timeout, retries, caFile, insecure };
}

export default defineCommand<Opts>({
  description: [
    'Speaks the Model Context Protocol on stdin and stdout (nothing else is written there; notes go to stderr), or',
    'over HTTP with --http. Tools are made from the commands: read-only unless --allow-write names their toolset.',
    'Changes of configuration go through plans: the plan tool returns a plan and its digest, which the apply tool',
    'takes (a stale plan is refused). Calls use this run\'s profile, credentials, retries and rate limits.',
  ].join(' '),
  examples: [
    'forgectl mcp serve',
    'forgectl mcp serve --toolsets projects,repository,review --allow-write desired-state',
    'forgectl mcp serve --http 127.0.0.1:8808',
  ],
  options: [
    ...toolsetOptions,
    { flags: '--http <host:port>', description: 'serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio (loopback unless --allow-remote)', parse: parseListen },
    { flags: '--allow-remote', description: 'let --http listen on an address other than loopback (anyone who reaches it acts with your token)' },
    { flags: '--root <folder>', description: 'the folder whose desired-state files the validate and plan tools may read (default: the working folder)', parse: parseRoot },
  ],
  async run(opts, ctx) {
    if (opts.http && !isLoopbackHost(opts.http.host) && !opts.allowRemote) {
      throw new UsageError(`--http ${opts.http.host}: not a loopback address`, 'anyone who reaches the port acts with your token: keep it on 127.0.0.1, or pass --allow-remote');
    }
    const tools = await buildCatalogue(ctx.commands.manifest, selection(opts));
    const server = new ToolServer({
      tools,
      execute: (invocation, streams) => ctx.execute(invocation, streams),
      commands: ctx.commands,
      globals: connectionGlobals(ctx.globals),
      root: opts.root ?? process.cwd(),
      log: ctx.globals.verbose ? (line) => ctx.io.note(`mcp: ${line}`) : undefined,
    });
    // Serves until the client closes stdin (exit 0), or SIGINT/SIGTERM (130/143, with this line).
    ctx.io.state.interruptNote = 'the MCP server stopped';
    if (opts.http) return serveHttp(server, opts.http, ctx);
    const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
    const streams = ctx.io.streams;
    const transport = new StdioServerTransport(streams.stdin, streams.stdout);
    const closed = new Promise<void>((resolve) => {
      const previous = transport.onclose;
      transport.onclose = () => {
        previous?.();
        resolve();
      };
    });
    const handle = serveStdio(() => server.create(), { transport, onerror: (error) => ctx.io.warn(`mcp: ${error.message}`) });
    ctx.io.note(`forgectl mcp: serving ${tools.length} tools on stdio (${tools.filter((tool) => !tool.readOnly).length} that write)`);
    // Until the client closes stdin, or a signal stops the run.
    await Promise.race([closed, ctx.interrupted]);
    await handle.close();
    return undefined;
  },
});

/** The streamable HTTP transport on a node:http server, one MCP endpoint at /mcp. */
async function serveHttp(server: ToolServer, listen: { host: string; port: number }, ctx: Context): Promise<undefined> {
  const { createMcpHandler } = await import('@modelcontextprotocol/server');
  const handler = createMcpHandler(() => server.create(), { onerror: (error) => ctx.io.warn(`mcp: ${error.message}`) });
  const http = createServer((request, response) => {
    void answer(handler.fetch, request, response, listen).catch((error: unknown) => {
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
  await ctx.io.out(`forgectl mcp listening on http://${host}:${address.port}/mcp\n`);
  await ctx.interrupted;
  await handler.close();
  await new Promise((resolve) => http.close(resolve));
  http.closeAllConnections();
  return undefined;
}

/**
 * One HTTP exchange. Requests from a web page (an Origin that is not loopback) and requests for another host name
 * (DNS rebinding) are refused, as the protocol asks of local servers.
 */
async function answer(fetch: (request: Request) => Promise<Response>, request: IncomingMessage, response: ServerResponse, listen: { host: string }): Promise<void> {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  if (url.pathname !== '/mcp') {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the MCP endpoint is /mcp\n');
    return;
  }
  const origin = request.headers.origin;
  const hostname = url.hostname;
  if ((origin && !isLoopbackHost(new URL(origin).hostname)) || (isLoopbackHost(listen.host) && !isLoopbackHost(hostname))) {
    response.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden: requests from other origins or host names are refused\n');
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : (Readable.toWeb(request) as ReadableStream);
  const reply = await fetch(new Request(url, { method: request.method, headers, body, duplex: 'half' } as RequestInit));
  response.writeHead(reply.status, Object.fromEntries(reply.headers));
  if (reply.body) {
    for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) response.write(chunk);
  }
  response.end();
}
