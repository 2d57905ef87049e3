import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand, type GivenGlobals, type GlobalOptions } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../http/url.js';
import { buildCatalogue } from './catalogue.js';
import { selection, toolsetOptions, type ToolsetOpts } from './options.js';
import { ToolServer } from './server.js';

interface Opts extends ToolsetOpts {
  http?: { host: string; port: number };
  allowRemote?: boolean;
  root?: string;
  secretFile?: string;
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
    'over HTTP with --http, where every request must carry the header Authorization: Bearer SECRET (the secret is',
    'printed once on stderr at start, or read from --secret-file). Tools are made from the commands: read-only unless',
    '--allow-write names their toolset; what the command line would ask about first (a deletion, a revocation, applying',
    'a plan …) runs only when the tool is called with confirm: true, after the person the agent acts for agreed.',
    'Changes of configuration go through plans: the plan tool returns a plan and its digest, which the apply tool',
    'takes (a stale plan is refused). Calls use this run\'s profile, credentials, retries and rate limits.',
  ].join(' '),
  examples: [
    'forgectl mcp serve',
    'forgectl mcp serve --toolsets projects,repository,review --allow-write desired-state',
    'forgectl mcp serve --http 127.0.0.1:8808',
    'forgectl mcp serve --http 127.0.0.1:8808 --secret-file ~/.config/forgectl/mcp.secret',
  ],
  options: [
    ...toolsetOptions,
    { flags: '--http <host:port>', description: 'serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio (loopback unless --allow-remote)', parse: parseListen },
    { flags: '--allow-remote', description: 'let --http listen on an address other than loopback (anyone who reaches it and has the secret acts with your token)' },
    { flags: '--secret-file <path>', description: 'with --http: the bearer secret clients send, read from this file (mode 0600); default: a new one, printed once on stderr', localFile: true },
    { flags: '--root <folder>', description: 'the folder whose desired-state files the validate and plan tools may read (default: the working folder)', parse: parseRoot },
  ],
  async run(opts, ctx) {
    if (opts.secretFile !== undefined && !opts.http) throw new UsageError('--secret-file goes with --http');
    if (opts.http && !isLoopbackHost(opts.http.host) && !opts.allowRemote) {
      throw new UsageError(`--http ${opts.http.host}: not a loopback address`, 'anyone who reaches the port acts with your token: keep it on 127.0.0.1, or pass --allow-remote');
    }
    const tools = await buildCatalogue(ctx.commands.manifest, selection(opts));
    const server = new ToolServer({
      tools,
      execute: (invocation, streams) => ctx.execute(invocation, streams),
      commands: ctx.commands,
      globals: connectionGlobals(ctx.globals),
      connection: () => ctx.connection(),
      root: opts.root ?? process.cwd(),
      log: ctx.globals.verbose ? (line) => ctx.io.note(`mcp: ${line}`) : undefined,
    });
    // Serves until the client closes stdin (exit 0), or SIGINT/SIGTERM (130/143, with this line).
    ctx.io.state.interruptNote = 'the MCP server stopped';
    if (opts.http) {
      const { httpSecret, serveHttp } = await import('./http.js');
      return serveHttp(server, opts.http, httpSecret(opts.secretFile), ctx);
    }
    const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
    const streams = ctx.io.streams;
    const { answeringMalformed } = await import('./stdio.js');
    const transport = new StdioServerTransport(answeringMalformed(streams.stdin, streams.stdout), streams.stdout);
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
