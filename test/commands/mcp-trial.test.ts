/**
 * What an agent's trial of the MCP server found: a rotation of the server's own token, a token created out of sight,
 * a cancelled call that went on sending.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, TOOLSETS } from '../../src/commands/mcp/catalogue.js';
import { ToolServer } from '../../src/commands/mcp/server.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { resolveConnection } from '../../src/config/resolve.js';
import { readConfig } from '../../src/config/store.js';
import { execute, main } from '../../src/main.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** A server with every tool, writes allowed, on this environment (and the connection it resolves to, as serve gives it). */
async function toolServer(env: Record<string, string | undefined>): Promise<ToolServer> {
  const all = Object.keys(TOOLSETS);
  const connection = () => resolveConnection({}, env, readConfig(env.FORGECTL_CONFIG_DIR!), () => undefined);
  return new ToolServer({ tools: await buildCatalogue(manifest, { toolsets: all, allowWrite: all }), commands, connection, execute: (invocation, streams, interrupted) => execute(invocation, { ...streams, env, interrupted }) });
}

const text = (result: { content: Array<{ text: string }> }) => result.content[0].text;

/** New users, each a developer of the group acme. */
async function addMembers(names: string[]): Promise<void> {
  for (const username of names) {
    const user = await sandbox.create('/users', { username, email: `${username}@example.com`, name: username, force_random_password: true });
    await sandbox.create('/groups/acme/members', { user_id: user.id, access_level: 30 });
  }
}

/** mcp serve --http on a free port with every tool and writes allowed: its address, its secret, and how to stop it. */
async function serveOverHttp(): Promise<{ url: string; secret: string; stop: () => void; served: Promise<number> }> {
  const stderr = new PassThrough();
  let said = '';
  stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  let stop = (): void => undefined;
  const interrupted = new Promise<'SIGINT'>((resolve) => (stop = () => resolve('SIGINT')));
  const served = main(['mcp', 'serve', '--http', '127.0.0.1:0', '--toolsets', 'all', '--allow-write', 'all'], { env: sandbox.env(), stdin: Readable.from([]), stdout: new PassThrough(), stderr, interrupted });
  for (let waited = 0; !/Bearer (\S+)\n/.test(said) && waited < 500; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
  return { url: /listening on (\S+)/.exec(said)![1], secret: /Authorization: Bearer (\S+)\n/.exec(said)![1], stop, served };
}

describe('the MCP server after an agent\'s trial', () => {
  it('goes on with the new token after rotating its own token into its profile', async () => {
    const dir = tempDir();
    const user = await sandbox.create('/users', { username: 'rotating-agent', email: 'rotating-agent@example.com', name: 'Rotating Agent', force_random_password: true });
    const token = sandbox.tokenOf(user.id, 'agent');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'agent', profiles: { agent: { url: sandbox.rootUrl, token } } }), { mode: 0o600 });
    const server = await toolServer({ FORGECTL_CONFIG_DIR: dir });
    const elsewhere = await server.call('tokens_rotate', { id: 'self', personal: true, save_to_profile: 'spare', confirm: true });
    expect(text(elsewhere)).toMatch(/^tokens_rotate of self would revoke the token this server uses \(from profile "agent", and the new token would not be saved there\).*\nhint: pass save_to_profile: true/);
    const rotated = await server.call('tokens_rotate', { id: 'self', personal: true, save_to_profile: true, confirm: true });
    expect(rotated.isError, text(rotated)).toBeFalsy();
    const after = await server.call('api', { path: '/user' });
    expect(after.isError, text(after)).toBeFalsy();
    expect(after.structuredContent).toMatchObject({ result: { username: 'rotating-agent' } });
  });

  it('refuses to create a token nobody would see: without reveal_token nothing is sent', async () => {
    const server = await toolServer(sandbox.env());
    sandbox.clearRequests();
    const unseen = await server.call('tokens_create', { personal: true, user: 'root', name: 'agent-made', scopes: ['read_api'], confirm: true });
    expect(text(unseen)).toMatch(/^tokens_create returns the new token once, in the result's token field, and nothing else keeps it: pass reveal_token: true\n\(exit 2/);
    expect(sandbox.requests()).toEqual([]);
    const shown = await server.call('tokens_create', { personal: true, user: 'root', name: 'agent-made', scopes: ['read_api'], reveal_token: true, confirm: true });
    expect(text(shown)).toMatch(/"token":"glpat-/);
  });

  it('refuses, before rotating, its own token when it comes from FORGECTL_TOKEN (the server could not use the new one)', async () => {
    const user = await sandbox.create('/users', { username: 'env-agent', email: 'env-agent@example.com', name: 'Env Agent', force_random_password: true });
    const token = sandbox.tokenOf(user.id, 'agent');
    const server = await toolServer({ FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: token });
    for (const args of [{ save_to_profile: 'other' }, { reveal_token: true }]) {
      sandbox.clearRequests();
      const rotated = await server.call('tokens_rotate', { id: 'self', personal: true, confirm: true, ...args });
      expect(text(rotated)).toMatch(/^tokens_rotate of self would revoke the token this server uses \(from FORGECTL_TOKEN, which the server cannot change\): every later call would be refused\nhint: rotate it outside this server .*\n\(exit 2: /);
      expect(sandbox.requests()).toEqual([]);
      const after = await server.call('api', { path: '/user' });
      expect(after.isError, text(after)).toBeFalsy();
    }
  });

  it('a cancelled call stops: a removal of several members sends no request after the cancellation', async () => {
    const server = await toolServer(sandbox.env());
    const names = ['leaver-1', 'leaver-2', 'leaver-3', 'leaver-4', 'leaver-5'];
    await addMembers(names);
    sandbox.fault({ method: 'DELETE', path: '/members/', latency_ms: 200, times: 10 });
    sandbox.clearRequests();
    const removals = () => sandbox.requests().filter((request) => request.method === 'DELETE').length;
    const cancel = new AbortController();
    const call = server.call('members_remove', { group: 'acme', users: names, confirm: true }, cancel.signal);
    for (let waited = 0; removals() < 1 && waited < 200; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
    cancel.abort();
    const outcome = await call;
    const sentByThen = removals();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The removal on the wire when the cancellation came may complete; none is sent after it.
    expect(removals()).toBe(sentByThen);
    expect(sentByThen).toBeLessThanOrEqual(2);
    const left = await sandbox.call('GET', '/groups/acme/members?per_page=100');
    expect((left.body as Array<{ username: string }>).filter((member) => names.includes(member.username)).length).toBeGreaterThanOrEqual(3);
    expect(text(outcome)).toMatch(/interrupted \(SIGINT\): nothing further was sent/);
  });

  it('an SDK client\'s cancellation of a call over HTTP stops it too', async () => {
    const names = ['quitter-1', 'quitter-2', 'quitter-3', 'quitter-4', 'quitter-5'];
    await addMembers(names);
    const { url, secret, stop, served } = await serveOverHttp();
    const client = new McpClient({ name: 'forgectl-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
    try {
      sandbox.fault({ method: 'DELETE', path: '/members/', latency_ms: 200, times: 10 });
      sandbox.clearRequests();
      const removals = () => sandbox.requests().filter((request) => request.method === 'DELETE').length;
      const cancel = new AbortController();
      const call = client.callTool({ name: 'members_remove', arguments: { group: 'acme', users: names, confirm: true } }, { signal: cancel.signal }).catch((error: unknown) => error);
      for (let waited = 0; removals() < 1 && waited < 300; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
      cancel.abort('the person changed their mind');
      await call;
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(removals()).toBeLessThanOrEqual(2);
    } finally {
      await client.close();
      stop();
      expect(await served).toBe(130);
    }
  });

  it('over HTTP a client\'s notifications/cancelled stops its own call only, not another client\'s call of the same id', async () => {
    const names = ['stayer-1', 'stayer-2', 'stayer-3'];
    await addMembers(names);
    const { url, secret, stop, served } = await serveOverHttp();
    // Two 2025-era clients, each numbering its requests from 1, each with the session id its initialize was given.
    const post = (session: string | undefined, message: Record<string, unknown>) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', ...message }),
      });
    const connect = async () => {
      const reply = await post(undefined, { id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'client', version: '1' } } });
      await reply.text();
      const session = reply.headers.get('mcp-session-id') ?? undefined;
      await (await post(session, { method: 'notifications/initialized' })).text();
      return session;
    };
    const [first, second] = [await connect(), await connect()];
    try {
      expect(first).not.toBe(second);
      sandbox.fault({ method: 'DELETE', path: '/members/', latency_ms: 200, times: 10 });
      sandbox.clearRequests();
      const removals = () => sandbox.requests().filter((request) => request.method === 'DELETE').length;
      const removal = post(first, { id: 1, method: 'tools/call', params: { name: 'members_remove', arguments: { group: 'acme', users: names, confirm: true } } }).then((reply) => reply.text());
      for (let waited = 0; removals() < 1 && waited < 300; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
      await (await post(second, { method: 'notifications/cancelled', params: { requestId: 1, reason: 'the other client gave up on its own call 1' } })).text();
      expect(await removal).not.toMatch(/interrupted/);
      expect(removals()).toBe(3);
      await addMembers(['stayer-4', 'stayer-5', 'stayer-6']);
      sandbox.clearRequests();
      const own = post(first, { id: 1, method: 'tools/call', params: { name: 'members_remove', arguments: { group: 'acme', users: ['stayer-4', 'stayer-5', 'stayer-6'], confirm: true } } }).then((reply) => reply.text());
      for (let waited = 0; removals() < 1 && waited < 300; waited++) await new Promise((resolve) => setTimeout(resolve, 10));
      await (await post(first, { method: 'notifications/cancelled', params: { requestId: 1, reason: 'changed my mind' } })).text();
      expect(await own).toMatch(/interrupted/);
      expect(removals()).toBeLessThanOrEqual(2);
    } finally {
      stop();
      expect(await served).toBe(130);
    }
  });

  it('every page of a list carries the same total, the last one too (which has no next_cursor)', async () => {
    const server = await toolServer(sandbox.env());
    const totals: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 100; pages++) {
      const page = await server.call('users_list', { per_page: 3, ...(cursor ? { cursor } : {}) });
      const paging = page.structuredContent as { count: number; total?: number; next_cursor?: string };
      totals.push(paging.total);
      cursor = paging.next_cursor;
      if (!cursor) break;
    }
    expect(totals.length).toBeGreaterThan(1);
    expect(new Set(totals).size, JSON.stringify(totals)).toBe(1);
    expect(totals[0]).toEqual(expect.any(Number));
  });
});
