/**
 * The agent interface's safety tier: every tool the server can offer (every toolset, read-only and with writes allowed
 * everywhere) is called with hostile values in each of its string and array inputs, one input at a time: words that
 * would be global options on a command line (--server, -p, --profile, --ca-file, --insecure) and paths of this machine
 * (a canary file, /dev/zero, a FIFO). Nothing may reach another host than the sandbox, no result and no request the
 * sandbox receives may carry the canary's content, no FIFO may be opened, and no call may hang.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, constants, openSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue, TOOLSETS, type JsonSchema, type Tool } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { execute } from '../../src/main.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

const sandbox = useTestSandbox();
const CALL_TIMEOUT_MS = 15_000;

/** A loopback forwarder in front of the sandbox that keeps every request body the sandbox receives. */
async function startRecordingForwarder(upstream: string): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const target = new URL(upstream);
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body.toString('latin1'));
      const upstreamRequest = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstreamRequest.on('error', () => res.destroy());
      upstreamRequest.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A watchdog in another process (this one may be blocked in a read): every 50 ms it tries to open the FIFO for
 * writing without blocking, which succeeds only while something has it open for reading. Each success is a reader
 * found (counted on its stdout), and closing it at once gives that reader an end of file, so nothing stays blocked.
 */
function startFifoWatchdog(fifo: string): { readers: () => number; reset: () => void; stop: () => void } {
  const script = `const fs = require('node:fs'); setInterval(() => { try { fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); process.stdout.write('r'); } catch {} }, 50);`;
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let found = 0;
  child.stdout!.on('data', (chunk: Buffer) => (found += chunk.length));
  return { readers: () => found, reset: () => void (found = 0), stop: () => child.kill() };
}

let evil: Receiver;
let forwarder: Awaited<ReturnType<typeof startRecordingForwarder>>;
let configDir = '';
let canary = { path: '', content: '' };
let fifo = '';
let watchdog: ReturnType<typeof startFifoWatchdog>;

beforeAll(async () => {
  evil = await startReceiver();
  forwarder = await startRecordingForwarder(sandbox.rootUrl);
  const dir = tempDir('forgectl-mcp-safety-');
  canary = { path: join(dir, 'canary.yaml'), content: `canary-${randomUUID()}` };
  writeFileSync(canary.path, `${canary.content}\n`);
  fifo = join(dir, 'fifo.yaml');
  execFileSync('mkfifo', [fifo]);
  configDir = tempDir('forgectl-mcp-safety-config-');
  chmodSync(configDir, 0o700);
  // The server's profile is the sandbox (behind the forwarder); "evil" is another instance with its own token.
  const config = { current: 'main', profiles: { main: { url: forwarder.url, token: sandbox.adminToken }, evil: { url: evil.url, token: 'glpat-evil-profile-token' } } };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  watchdog = startFifoWatchdog(fifo);
  // The watchdog sees a reader: one opened here (without blocking) is counted, then the count starts afresh.
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  while (watchdog.readers() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  closeSync(reader);
  await new Promise((resolve) => setTimeout(resolve, 100));
  watchdog.reset();
});

afterAll(async () => {
  watchdog?.stop();
  await forwarder?.close();
  await evil?.close();
});

/** Every tool the server can offer: all toolsets read-only, and all with writes allowed (api differs between them). */
async function everyTool(): Promise<Tool[]> {
  const all = Object.keys(TOOLSETS);
  const tools = [...(await buildCatalogue(manifest, { toolsets: all })), ...(await buildCatalogue(manifest, { toolsets: all, allowWrite: all }))];
  const seen = new Set<string>();
  return tools.filter((tool) => {
    const key = `${tool.name} ${tool.readOnly}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A server whose calls use the sandbox by FORGECTL_URL and FORGECTL_TOKEN (as the README sets up), or by the profile. */
function serverFor(tools: Tool[], credentials: 'environment' | 'profile'): ToolServer {
  const env = credentials === 'environment' ? { FORGECTL_CONFIG_DIR: configDir, FORGECTL_URL: forwarder.url, FORGECTL_TOKEN: sandbox.adminToken } : { FORGECTL_CONFIG_DIR: configDir };
  return new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env }) });
}

/** Values that pass the schema for the inputs a tool requires, so that the hostile one is what the command sees. */
const PLAIN: Record<string, string> = { project: 'acme/api', group: 'acme', key: 'LOG_LEVEL', path: 'README.md', digest: 'f'.repeat(64), sha: 'main', name: 'main' };
function plainValue(name: string, schema: JsonSchema): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum) return schema.enum[0];
  if (type === 'integer' || type === 'number') return Math.max(1, schema.minimum ?? 1);
  if (type === 'boolean') return true;
  if (type === 'array') return [schema.items?.enum?.[0] ?? PLAIN[name] ?? '1'];
  return PLAIN[name] ?? '1';
}

/** The inputs a hostile word can go into: strings and arrays of strings without a fixed list of values. */
function freeInputs(tool: Tool): Array<[string, 'string' | 'array']> {
  return Object.entries(tool.inputSchema.properties ?? {}).flatMap(([name, schema]): Array<[string, 'string' | 'array']> => {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (schema.enum) return [];
    if (types.includes('array') && !schema.items?.enum) return [[name, 'array']];
    if (types.includes('string')) return [[name, 'string']];
    return [];
  });
}

interface Sweep {
  calls: number;
  texts: string[];
  slow: string[];
  /** Calls that succeeded: the sweep reaches the sandbox, not only input checks. */
  succeeded: number;
}

/** Calls every tool with each hostile value in each free input, a few calls at a time; each call has a deadline. */
async function sweep(server: ToolServer, tools: Tool[], strings: string[], arrays: string[][]): Promise<Sweep> {
  const calls: Array<{ tool: Tool; input: Record<string, unknown> }> = [];
  for (const tool of tools) {
    const properties = tool.inputSchema.properties ?? {};
    // What it requires, and the project (else the group) it works on, so that calls get as far as their requests.
    const wanted = [...(tool.inputSchema.required ?? []), ...('project' in properties ? ['project'] : 'group' in properties ? ['group'] : [])];
    const base = Object.fromEntries(wanted.map((name) => [name, plainValue(name, properties[name])]));
    for (const [name, kind] of freeInputs(tool)) {
      for (const value of kind === 'array' ? arrays : strings) calls.push({ tool, input: { ...base, [name]: value } });
    }
  }
  const result: Sweep = { calls: calls.length, texts: [], slow: [], succeeded: 0 };
  const limit = 8;
  for (let i = 0; i < calls.length; i += limit) {
    await Promise.all(
      calls.slice(i, i + limit).map(async ({ tool, input }) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CALL_TIMEOUT_MS)));
        const outcome = await Promise.race([server.call(tool.name, input), deadline]);
        clearTimeout(timer);
        if (outcome === 'timeout') result.slow.push(`${tool.name} ${JSON.stringify(input)}`);
        else {
          result.texts.push(JSON.stringify(outcome));
          if (!outcome.isError) result.succeeded++;
        }
      }),
    );
  }
  return result;
}

describe('no tool input becomes an option, and no tool reads a local path it is given', () => {
  it('--server in any input (one word, or two array items) sends nothing to another host', async () => {
    const tools = await everyTool();
    const server = serverFor(tools, 'environment');
    const url = evil.url;
    const result = await sweep(server, tools, [`--server=${url}`, `--server ${url}`, `--server=${url}/api/v4`], [['--server', url], [`--server=${url}`]]);
    process.stdout.write(`--server sweep: ${result.calls} calls of ${tools.length} tools, ${result.succeeded} succeeded; requests that reached another host than the sandbox: ${evil.received.length}\n`);
    expect(result.calls).toBeGreaterThan(1000);
    expect(result.succeeded).toBeGreaterThan(150);
    expect(evil.received.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(result.slow).toEqual([]);
  }, 600_000);

  it('-p and --profile in any input select no other profile', async () => {
    const tools = await everyTool();
    const server = serverFor(tools, 'profile');
    const result = await sweep(server, tools, ['-pevil', '--profile=evil', '-p evil'], [['-p', 'evil'], ['--profile', 'evil'], ['--profile=evil']]);
    process.stdout.write(`--profile sweep: ${result.calls} calls; requests that reached another host than the sandbox: ${evil.received.length}\n`);
    expect(evil.received.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(result.slow).toEqual([]);
  }, 600_000);

  it('--ca-file and --insecure in any input change no connection setting', async () => {
    const tools = await everyTool();
    const server = serverFor(tools, 'environment');
    const result = await sweep(server, tools, [`--ca-file=${canary.path}`, '--insecure'], [['--ca-file', canary.path], ['--insecure']]);
    process.stdout.write(`TLS sweep: ${result.calls} calls\n`);
    const turned = result.texts.filter((text) => /verification is disabled|the CA file/.test(text));
    expect(turned).toEqual([]);
    expect(evil.received).toEqual([]);
  }, 600_000);

  it('a canary file, /dev/zero and a FIFO named in any input are never read, and nothing hangs', async () => {
    const tools = await everyTool();
    const server = serverFor(tools, 'environment');
    forwarder.bodies.length = 0;
    const paths = [canary.path, '/dev/zero', fifo];
    const result = await sweep(server, tools, paths, [...paths.map((path) => [path]), [`file:${canary.path}`], [`x=@${canary.path}`]]);
    const inResults = result.texts.filter((text) => text.includes(canary.content)).length;
    const inRequests = forwarder.bodies.filter((body) => body.includes(canary.content)).length;
    process.stdout.write(`local-path sweep: ${result.calls} calls; results with the canary: ${inResults}; requests with it: ${inRequests}; FIFO readers: ${watchdog.readers()}\n`);
    expect(inResults).toBe(0);
    expect(inRequests).toBe(0);
    expect(watchdog.readers()).toBe(0);
    expect(result.slow).toEqual([]);
    expect(evil.received).toEqual([]);
  }, 600_000);
});
