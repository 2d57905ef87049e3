import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mayRetry, retryDelayMs } from '../../src/http/retry.js';
import { startProxy } from '../helpers/proxy.js';
import { run, startTestSandbox, tempDir, type TestSandbox, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('retry policy (contract §7)', () => {
  it('retries idempotent methods on 429, 502, 503, 504 and network errors; POST only when provably not processed', () => {
    for (const status of [429, 502, 503, 504]) expect(mayRetry('GET', { status })).toBe(true);
    for (const status of [400, 401, 404, 409, 500]) expect(mayRetry('GET', { status })).toBe(false);
    expect(mayRetry('PUT', { status: 503 })).toBe(true);
    expect(mayRetry('DELETE', { sentMaybe: true })).toBe(true);
    expect(mayRetry('POST', { status: 503 })).toBe(false);
    expect(mayRetry('POST', { status: 429 })).toBe(true);
    expect(mayRetry('POST', { sentMaybe: true })).toBe(false);
    expect(mayRetry('POST', { sentMaybe: false })).toBe(true);
    expect(mayRetry('GET', { sentMaybe: false, permanent: true })).toBe(false);
  });

  it('waits for Retry-After, then RateLimit-ResetTime / RateLimit-Reset, then backs off with jitter', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const headers = (h: Record<string, string>) => (name: string) => h[name];
    expect(retryDelayMs(0, headers({ 'retry-after': '3', 'ratelimit-reset': String(now / 1000 + 30) }), now)).toBe(3000);
    expect(retryDelayMs(0, headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryDelayMs(0, headers({ 'ratelimit-resettime': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
    expect(retryDelayMs(0, headers({ 'ratelimit-reset': String(now / 1000 + 9) }), now)).toBe(9000);
    const none = headers({});
    expect(retryDelayMs(0, none, now, () => 0)).toBe(250);
    expect(retryDelayMs(0, none, now, () => 1)).toBe(500);
    expect(retryDelayMs(3, none, now, () => 1)).toBe(4000);
    expect(retryDelayMs(20, none, now, () => 1)).toBe(30_000);
  });

  it('retries a GET through injected 503 and 429 (with Retry-After) faults', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/version$', status: 503 });
    sandbox.fault({ method: 'GET', path: '^/version$', status: 429, retry_after: 1 });
    const started = Date.now();
    const result = await sandbox.run(['-v', 'api', '/version']);
    expect(result.code).toBe(0);
    expect(result.json().version).toBeTruthy();
    expect(sandbox.requests().map((r) => r.status)).toEqual([503, 429, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // honoured Retry-After: 1
    expect(result.stderr).toMatch(/retrying in 1\.0s/);
  });

  it('gives up after --retries with the exit code of the last status', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', status: 503, times: 5 });
    const result = await sandbox.run(['--retries', '1', 'api', '/version']);
    expect(result.code).toBe(8);
    sandbox.faults.clear();
    sandbox.fault({ method: 'GET', path: '^/version$', status: 429, retry_after: 0, times: 5 });
    expect((await sandbox.run(['--retries', '0', 'api', '/version'])).code).toBe(7);
    sandbox.faults.clear();
  });

  it('a 429 asking for a longer wait than forgectl takes fails at once, saying the wait in words and when to try again', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/version$', status: 429, retry_after: 3600 });
    const result = await sandbox.run(['api', '/version']);
    expect(result.code).toBe(7);
    expect(sandbox.requests()).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: .*the server asks to wait 1 h before retrying; forgectl waits at most 60 s/);
    expect(result.stderr).toMatch(/^hint: nothing was changed \(the server refused the request\): run it again after 1 h \(after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/m);
    expect(result.stderr).not.toContain('--retries');
  });

  it('never retries a POST the server may have processed', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '^/user$', status: 503 });
    const result = await sandbox.run(['api', '-X', 'POST', '/user']);
    expect(result.code).toBe(8);
    expect(sandbox.requests()).toHaveLength(1);
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '^/user$', drop: 'after' });
    expect((await sandbox.run(['api', '-X', 'POST', '/user'])).code).toBe(8);
    expect(sandbox.requests()).toHaveLength(1);
  });

  it('retries a GET whose connection dropped after processing', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/version$', drop: 'after' });
    const result = await sandbox.run(['api', '/version']);
    expect(result.code).toBe(0);
    expect(sandbox.requests().map((r) => r.status)).toEqual(['dropped', 200]);
  });

  it('times out a slow response (exit 8)', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', latency_ms: 2500 });
    const result = await sandbox.run(['--timeout', '1', '--retries', '0', 'api', '/version']);
    expect(result.code).toBe(8);
    expect(result.stderr).toContain('no response');
  });

  it('says how many attempts a failure took, and what https against a plain HTTP port or a refused connection mean', async () => {
    sandbox.fault({ method: 'GET', path: '^/version$', latency_ms: 2500, times: 3 });
    const slow = await sandbox.run(['--timeout', '1', '--retries', '1', 'api', '/version'], { sleep: async () => undefined });
    expect(slow.code).toBe(8);
    expect(slow.stderr).toMatch(/^error: no response from 127\.0\.0\.1:\d+ within 1s \(2 attempts in \d+ s; --retries sets how many\)/);
    const tls = await sandbox.run(['--server', sandbox.rootUrl.replace('http:', 'https:'), 'api', '/version']);
    expect(tls.code).toBe(8);
    expect(tls.stderr).toMatch(/^error: 127\.0\.0\.1:\d+ does not answer in TLS: the URL says https:\/\/, the server speaks plain HTTP/);
    expect(tls.stderr).not.toContain('wrong version number');
    const refused = await sandbox.run(['--server', 'http://127.0.0.1:1', '--retries', '0', 'api', '/version']);
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(/^error: connection refused by 127\.0\.0\.1:1\nhint: nothing listens at 127\.0\.0\.1:1: check the URL and its port/);
  });
});

describe('proxy', () => {
  it('never sends a loopback request through a proxy (the token would cross it in clear text)', async () => {
    const proxy = await startProxy();
    try {
      const direct = await sandbox.run(['api', '/user'], { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
      expect(direct.code).toBe(0);
      expect(direct.json().username).toBe('root');
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('goes through HTTP_PROXY for other hosts and bypasses it for NO_PROXY hosts', async () => {
    const port = new URL(sandbox.rootUrl).port;
    const proxy = await startProxy({ hosts: { 'forge.test': '127.0.0.1' } });
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'lab', profiles: { lab: { url: `http://forge.test:${port}`, token: sandbox.adminToken, allow_http: true } } }), { mode: 0o600 });
    const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, HTTP_PROXY: proxy.url };
    try {
      const viaProxy = await sandbox.run(['api', '/user'], { env });
      expect(viaProxy.code).toBe(0);
      expect(viaProxy.json().username).toBe('root');
      expect(proxy.seen).toEqual([`CONNECT forge.test:${port}`]);
      proxy.seen.length = 0;
      const bypass = await sandbox.run(['--retries', '0', 'api', '/user'], { env: { ...env, NO_PROXY: 'forge.test' } });
      expect(bypass.code).toBe(8);
      expect(bypass.stderr).toContain('cannot resolve host forge.test');
      expect(proxy.seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('names the proxy when it cannot be reached', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'lab', profiles: { lab: { url: 'http://forge.test:8080', token: 'x', allow_http: true } } }), { mode: 0o600 });
    const result = await run(['--retries', '0', 'api', '/user'], { env: { FORGECTL_CONFIG_DIR: dir, HTTP_PROXY: 'http://user:secret@127.0.0.1:1' } });
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/^error: cannot reach the proxy http:\/\/\*+:\*+@127\.0\.0\.1:1\/? \(ECONNREFUSED\) for forge\.test:8080\nhint: check HTTPS_PROXY/);
    expect(result.stderr).not.toContain('secret');
  });
});

describe('TLS', () => {
  let tls: TestSandbox;
  beforeAll(async () => {
    tls = await startTestSandbox({ tls: true });
  });
  afterAll(() => tls.close());

  it('refuses an untrusted certificate (exit 8), trusts it with --ca-file, and skips checks with --insecure', async () => {
    expect(tls.rootUrl).toMatch(/^https:/);
    const untrusted = await tls.run(['--retries', '0', 'api', '/user']);
    expect(untrusted.code).toBe(8);
    expect(untrusted.stderr).toContain('TLS');
    const trusted = await tls.run(['--ca-file', tls.caFile!, 'api', '/user']);
    expect(trusted.code).toBe(0);
    expect(trusted.json().username).toBe('root');
    const insecure = await tls.run(['--insecure', 'api', '/user']);
    expect(insecure.code).toBe(0);
    expect(insecure.stderr).toContain('warning: TLS certificate verification is disabled');
  });

  it('exits 3 when the CA file cannot be read', async () => {
    const result = await run(['--ca-file', '/nonexistent/ca.pem', 'api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: tls.rootUrl, FORGECTL_TOKEN: tls.adminToken } });
    expect(result.code).toBe(3);
  });
});
