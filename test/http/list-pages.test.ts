import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';

/**
 * The pages of a list (NDJSON and JSON output) over the HTTP client, against the sandbox over real sockets: what the
 * service can send (Content-Length or chunked bodies, cut answers, errors, 429s, malformed pages) ends the same way
 * with --verbose or without (the same client serves both).
 */
let sandbox: TestSandbox;
let tls: TestSandbox;
const PER_PAGE = 40;
/** Every user, as the service lists them (id descending), and how the CLI writes them as NDJSON and JSON. */
const records: Array<Record<string, unknown>> = [];
let ndjson = '';
let json = '';

beforeAll(async () => {
  [sandbox, tls] = await Promise.all([startTestSandbox({ users: 600 }), startTestSandbox({ tls: true, users: 100 })]);
  for (let page = 1; ; page++) {
    const answer = await sandbox.call('GET', `/users?per_page=${PER_PAGE}&page=${page}`);
    records.push(...(answer.body as Array<Record<string, unknown>>));
    if (!answer.headers.get('x-next-page')) break;
  }
  ndjson = records.map((record) => `${JSON.stringify(record)}\n`).join('');
  json = `${JSON.stringify(records, null, 2)}\n`;
});
afterAll(async () => {
  await sandbox.close();
  await tls.close();
});

const list = (format: 'ndjson' | 'json' = 'ndjson', extra: string[] = []) => sandbox.run([...extra, 'users', 'list', '--all', '--per-page', String(PER_PAGE), '-o', format]);
const pageQuery = (page: number) => `(^|&)page=${page}(&|$)`;
/**
 * A run that ends with an error leaves the pages it asked for ahead on their way (over either client): they reach the
 * sandbox after it returned. Waits until no request has come for a while, so that they do not meet the next test's
 * faults.
 */
const settle = async () => {
  for (let seen = -1; seen !== sandbox.faults.log.length; ) {
    seen = sandbox.faults.log.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
};
const pageRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v4/users'));
/** The connections the requests for users came on (those whose path has `part`), in order. */
const connections = (part = '') => (sandbox.faults.log as Array<{ path: string; connection?: number }>).filter((r) => r.path.startsWith('/api/v4/users') && r.path.includes(part)).map((r) => r.connection);

describe('list pages', () => {
  it('reads every page, framed by Content-Length, over a few kept-alive connections, the same with --verbose', async () => {
    const [lines, array] = [await list('ndjson'), await list('json')];
    expect([lines.code, array.code]).toEqual([0, 0]);
    expect((await list('ndjson', ['--verbose'])).stdout).toBe(ndjson);
    sandbox.clearRequests();
    await list('ndjson');
    await list('json');
    expect(lines.stdout).toBe(ndjson);
    expect(array.stdout).toBe(json);
    const pages = Math.ceil(records.length / PER_PAGE);
    expect(pageRequests()).toHaveLength(2 * pages);
    // Each run opens at most its 8 connections and one more (undici's pool takes a new one for a request sent while
    // the connection of the answer just read is not yet free), and sends the rest of its requests on them.
    const used = new Set(connections());
    expect(used.size).toBeLessThanOrEqual(2 * 9);
    expect(used.size).toBeLessThan(pageRequests().length);
  });

  it('reads answers framed in chunks', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', chunked: true, times: 1000 });
    const [lines, array] = [await list('ndjson'), await list('json')];
    sandbox.faults.clear();
    expect([lines.code, array.code]).toEqual([0, 0]);
    expect(lines.stdout).toBe(ndjson);
    expect(array.stdout).toBe(json);
  });

  it('sends a page again whose body was cut part-way, framed either way (the retry policy)', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(4), drop: 'body' });
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(7), drop: 'body', chunked: true });
    const result = await list();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(ndjson);
    const statuses = (page: number) => pageRequests().filter((r) => new RegExp(pageQuery(page)).test(r.path.split('?')[1])).map((r) => r.status);
    // The sandbox logs a cut answer with its status: each of those pages was asked twice.
    expect([statuses(4), statuses(7)]).toEqual([[200, 200], [200, 200]]);
  });

  it('a 500 mid-list is a server failure (exit 8), worded the same with --verbose, after the pages before it; a 503 is retried', async () => {
    const failing = async (extra: string[]) => {
      sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(5), status: 500 });
      const result = await list('ndjson', extra);
      await settle();
      sandbox.faults.clear();
      return result;
    };
    const quiet = await failing([]);
    const verbose = await failing(['--verbose']);
    expect([quiet.code, verbose.code]).toEqual([8, 8]);
    const words = (stderr: string) => stderr.split('\n').filter((line) => !/^\[\d+\] /.test(line)).join('\n').replace(/"request_id":"\w+"/, '');
    expect(words(quiet.stderr)).toBe(words(verbose.stderr));
    expect(quiet.stderr).toMatch(/^error: 500 Injected fault \(GET \/users → 500\)\n/);
    expect(quiet.stdout).toBe(ndjson.split('\n').slice(0, 4 * PER_PAGE).map((line) => `${line}\n`).join(''));
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(5), status: 503 });
    const retried = await list();
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toBe(ndjson);
    expect(pageRequests().filter((r) => r.status === 503)).toHaveLength(1);
  });

  it('--verbose tags the lines of each request with its number: the 503 of a page stays with that page while the pages ahead interleave', async () => {
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(2), status: 503, latency_ms: 300, times: 1 });
    const result = await list('ndjson', ['--verbose']);
    sandbox.faults.clear();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(ndjson);
    const lines = result.stderr.split('\n').filter((line) => /^\[\d+\] /.test(line));
    const tagOf = (line: string) => /^\[(\d+)\]/.exec(line)![1];
    const byRequest = new Map<string, string[]>();
    for (const line of lines) byRequest.set(tagOf(line), [...(byRequest.get(tagOf(line)) ?? []), line.replace(/^\[\d+\] /, '')]);
    const pageOf = (request: string[]) => /[?&]page=(\d+)/.exec(request[0])?.[1];
    const statusesOf = (request: string[]) => request.filter((line) => line.startsWith('< ')).map((line) => line.split(' ')[1]);
    // One request per page, each opened by its GET, with its answers and its redacted headers under its own number.
    expect([...byRequest.values()].map(pageOf)).toEqual(Array.from({ length: byRequest.size }, (_, i) => String(i + 1)));
    expect([...byRequest.values()].map(statusesOf)).toEqual([...byRequest.values()].map((request) => (pageOf(request) === '2' ? ['503', '200'] : ['200'])));
    const tokenLines = lines.filter((line) => /private-token|authorization/i.test(line));
    expect(tokenLines.length).toBe(lines.filter((line) => / > GET /.test(line)).length);
    expect(tokenLines.every((line) => line.endsWith('[REDACTED]'))).toBe(true);
    expect(result.stderr).not.toContain(sandbox.adminToken);
    // The pages ahead were in flight while page 2 waited: the lines of other requests sit between its GET and its 503.
    const page2 = tagOf(lines.find((line) => /[?&]page=2(&|$)/.test(line))!);
    const [sent, answered] = [lines.findIndex((line) => tagOf(line) === page2), lines.findIndex((line) => tagOf(line) === page2 && line.includes('< 503'))];
    expect(new Set(lines.slice(sent, answered).map(tagOf)).size).toBeGreaterThan(1);
  });

  it('a 429 waits for its Retry-After before the page is asked again', async () => {
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(3), status: 429, retry_after: 1 });
    const started = Date.now();
    const result = await list();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(ndjson);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const log = sandbox.faults.log.filter((r) => new RegExp(pageQuery(3)).test(r.path.split('?')[1] ?? ''));
    expect(log.map((r) => r.status)).toEqual([429, 200]);
    expect(Date.parse(log[1].at) - Date.parse(log[0].at)).toBeGreaterThanOrEqual(1000);
  });

  it('a 429 asking for a longer wait than forgectl accepts ends the run, the same with --verbose, its answer read whole', async () => {
    const refused = async (extra: string[]) => {
      sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(2), status: 429, retry_after: 3600 });
      const result = await list('ndjson', extra);
      await settle();
      sandbox.faults.clear();
      return result;
    };
    const [quiet, verbose] = [await refused([]), await refused(['--verbose'])];
    expect(quiet.code).toBe(verbose.code);
    const words = (stderr: string) => stderr.split('\n').filter((line) => !/^\[\d+\] /.test(line)).join('\n').replace(/"request_id":"\w+"/, '')
      // The two runs ask at different moments: the time to retry after may differ by a second.
      .replace(/after \d{4}-\d\d-\d\dT[\d:]+Z/, 'after <time>');
    expect(words(quiet.stderr)).toBe(words(verbose.stderr));
    expect(quiet.stdout).toBe(ndjson.split('\n').slice(0, PER_PAGE).map((line) => `${line}\n`).join(''));
  });

  it('a malformed page, whatever its framing, is a server failure (exit 8) before any of it is written', async () => {
    const broken = `[${'{"id":1,"username":"broken"},'.repeat(PER_PAGE - 1)}{"id":1,"username":"broken"`;
    for (const chunked of [false, true]) {
      sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(6), status: 200, body: broken, headers: { 'Content-Type': 'application/json', 'X-Next-Page': '7' }, ...(chunked ? { chunked } : {}) });
      const result = await list();
      await settle();
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toMatch(/malformed JSON \(GET \/users\)/);
      expect(result.stdout).toBe(ndjson.split('\n').slice(0, 5 * PER_PAGE).map((line) => `${line}\n`).join(''));
    }
  });

  it('times out a page that does not come (exit 8), worded the same with --verbose', async () => {
    const slow = async (extra: string[]) => {
      sandbox.fault({ method: 'GET', path: '^/users$', query: pageQuery(2), latency_ms: 2500 });
      const result = await list('ndjson', ['--timeout', '1', '--retries', '0', ...extra]);
      await settle();
      sandbox.faults.clear();
      return result;
    };
    const [quiet, verbose] = [await slow([]), await slow(['--verbose'])];
    expect([quiet.code, verbose.code]).toEqual([8, 8]);
    expect(quiet.stderr).toMatch(/^error: no response from 127\.0\.0\.1:\d+ within 1s/);
    expect(quiet.stderr.split('\n')[0]).toBe(verbose.stderr.split('\n').find((line) => line.startsWith('error:')));
  });

  it('over https, trusts the profile\'s CA and --insecure, and refuses an unknown certificate', async () => {
    const argv = ['users', 'list', '--all', '--per-page', '20', '-o', 'ndjson'];
    const expected = (await tls.run(['--verbose', '--ca-file', tls.caFile!, ...argv])).stdout;
    expect(expected.trim().split('\n').length).toBeGreaterThan(100);
    const trusted = await tls.run(['--ca-file', tls.caFile!, ...argv]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toBe(expected);
    const insecure = await tls.run(['--insecure', ...argv]);
    expect(insecure.stdout).toBe(expected);
    const untrusted = await tls.run(['--retries', '0', ...argv]);
    expect(untrusted.code).toBe(8);
    expect(untrusted.stderr).toMatch(/^error: TLS error talking to 127\.0\.0\.1:\d+/);
  });
});

describe('the HTTP client underneath', () => {
  it('keeps connections alive for requests one after another (two at most: see above)', async () => {
    const http = new HttpClient({ timeoutMs: 5000, retries: 2, env: {}, userAgent: 'forgectl/test', sleep: async () => undefined });
    sandbox.clearRequests();
    for (let page = 1; page <= 12; page++) {
      const response = await http.send({ method: 'GET', url: `${sandbox.url}/users?per_page=30&page=${page}`, headers: { 'PRIVATE-TOKEN': sandbox.adminToken }, read: true });
      expect(JSON.parse((await response.buffer()).toString())).toEqual(records.slice((page - 1) * 30, page * 30));
    }
    expect(new Set(connections('per_page=30&')).size).toBeLessThanOrEqual(2);
    await http.close();
  });
});
