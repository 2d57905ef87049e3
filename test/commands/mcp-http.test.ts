import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { chmodSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** A text sink that resolves waiters once what it holds matches. */
class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
  async until(pattern: RegExp): Promise<RegExpExecArray> {
    for (let i = 0; i < 500; i++) {
      const match = pattern.exec(this.text);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`never wrote ${pattern}: ${this.text}`);
  }
}

/** `forgectl mcp serve --http 127.0.0.1:0 ARGS` in this process until stop() (Ctrl-C). */
async function startHttpServer(args: string[] = []) {
  const stdout = new Sink();
  const stderr = new Sink();
  let interrupt = (): void => undefined;
  const interrupted = new Promise<'SIGINT'>((resolve) => (interrupt = () => resolve('SIGINT')));
  const done = main(['mcp', 'serve', '--http', '127.0.0.1:0', ...args], { env: sandbox.env(), stdin: Readable.from([]), stdout, stderr, interrupted });
  const [, url] = await Promise.race([stderr.until(/listening on (\S+)/), done.then((code) => Promise.reject(new Error(`exit ${code}: ${stderr.text}`)))]);
  const [, secret] = await stderr.until(/Authorization: Bearer (.+)\n/);
  return { url, secret, stdout, stderr, stop: async () => (interrupt(), done) };
}

/** The status of a bare POST to the endpoint with these headers. */
const status = (url: string, headers: Record<string, string>) =>
  new Promise<{ status?: number; authenticate?: string }>((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode, authenticate: response.headers['www-authenticate'] });
    });
    request.on('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'api', arguments: { path: '/user' } } }));
  });

describe('mcp serve --http', () => {
  it('says once on stderr where it listens and the secret to send; every request without the secret is refused (401)', async () => {
    const server = await startHttpServer();
    try {
      expect(server.stdout.text).toBe('');
      expect(server.stderr.text.match(/listening on/g)).toHaveLength(1);
      expect(server.secret).toMatch(/^[\w-]{43}$/);
      expect(await status(server.url, {})).toEqual({ status: 401, authenticate: 'Bearer realm="forgectl mcp"' });
      expect((await status(server.url, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await status(server.url, { authorization: `Basic ${server.secret}` })).status).toBe(401);
      expect((await status(server.url, { authorization: `Bearer ${server.secret}x` })).status).toBe(401);
      // Web pages and other host names are refused before the secret is looked at; a null Origin too.
      for (const headers of [{ origin: 'null' }, { origin: 'https://evil.example' }, { origin: 'not a url' }, { host: 'evil.example' }] as Array<Record<string, string>>) {
        expect((await status(server.url, { ...headers, authorization: `Bearer ${server.secret}` })).status, JSON.stringify(headers)).toBe(403);
      }
      const client = new McpClient({ name: 'forgectl-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.secret}` } } }));
      const user = (await client.callTool({ name: 'api', arguments: { path: '/user' } })) as { structuredContent?: { result?: unknown } };
      expect(user.structuredContent?.result).toMatchObject({ username: 'root' });
      await client.close();
    } finally {
      expect(await server.stop()).toBe(130);
    }
  });

  it('takes the secret from a file only its owner can read (--secret-file), and does not print it', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.secret');
    writeFileSync(file, 'a-secret-of-the-operator-1234567\n', { mode: 0o644 });
    const open = await sandbox.run(['mcp', 'serve', '--http', '127.0.0.1:0', '--secret-file', file]);
    expect(open.code).toBe(3);
    expect(open.stderr).toContain(`hint: run: chmod 600 ${file}`);
    expect((await sandbox.run(['mcp', 'serve', '--secret-file', file])).stderr).toContain('--secret-file goes with --http');
    writeFileSync(join(dir, 'short'), 'short\n', { mode: 0o600 });
    expect((await sandbox.run(['mcp', 'serve', '--http', '127.0.0.1:0', '--secret-file', join(dir, 'short')])).code).toBe(2);
    chmodSync(file, 0o600);
    const server = await startHttpServer(['--secret-file', file]);
    try {
      expect(server.secret).toBe(`the secret in ${file}`);
      expect(server.stderr.text).not.toContain('a-secret-of-the-operator');
      expect((await status(server.url, {})).status).toBe(401);
      expect((await status(server.url, { authorization: 'Bearer a-secret-of-the-operator-1234567' })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
