import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from '../../src/api/client.js';
import { COUNT_LIMIT, ListResult, type ListOptions } from '../../src/api/paginate.js';
import { HttpClient } from '../../src/http/client.js';
import { startTestSandbox, type TestSandbox } from '../helpers/cli.js';
import { users } from '../../src/sandbox/model.js';

let small: TestSandbox;
let large: TestSandbox;
/** 10,041 users: more than the service counts, the last page (101 at 100 a page) short. */
let uncounted: TestSandbox;
/** 20,050 users: between the count limit and the offset limit, the last page (201) short. */
let middle: TestSandbox;
/** Users an administrator sees in the small sandbox: root, alice, bob, 247 seeded users, and token bot users. */
let smallTotal = 0;
beforeAll(async () => {
  [small, large, uncounted, middle] = await Promise.all([
    startTestSandbox({ users: 247 }),
    startTestSandbox({ users: 10_120, seed: 'empty' }),
    startTestSandbox({ users: 10_040, seed: 'empty' }),
    startTestSandbox({ users: 20_049, seed: 'empty' }),
  ]);
  smallTotal = users(small.db).length;
});
afterAll(async () => {
  await small.close();
  await large.close();
  await uncounted.close();
  await middle.close();
});

function apiFor(sandbox: TestSandbox): Api {
  const http = new HttpClient({ timeoutMs: 10_000, retries: 0, env: {}, userAgent: 'test' });
  return new Api(
    { baseUrl: sandbox.url, token: sandbox.adminToken, tokenType: 'private', tokenSource: 'environment' },
    http,
    { dryRun: false, printDryRun: () => undefined },
  );
}

async function collect(list: ListResult<{ id: number }>): Promise<number[]> {
  const ids: number[] = [];
  for await (const item of list) ids.push(item.id);
  return ids;
}

const list = (sandbox: TestSandbox, options: ListOptions) => apiFor(sandbox).list<{ id: number }>('/users', {}, options);

describe('pagination engine (contract §6)', () => {
  it('shows the first page and says how many exist', async () => {
    const result = list(small, {});
    expect(await collect(result)).toHaveLength(20);
    expect(smallTotal).toBeGreaterThanOrEqual(250);
    expect(result.notice).toBe(`showing 20 of ${smallTotal} — use --all or --limit`);
  });

  it('map() transforms records as they stream and keeps the notice', async () => {
    const mapped = list(small, {}).map((user) => ({ ...user, doubled: user.id * 2 }));
    const records: Array<{ id: number; doubled: number }> = [];
    for await (const record of mapped) records.push(record);
    expect(records).toHaveLength(20);
    expect(records.every((r) => r.doubled === r.id * 2)).toBe(true);
    expect(mapped.notice).toBe(`showing 20 of ${smallTotal} — use --all or --limit`);
  });

  it('says more exist when the instance does not count (over 10,000 records)', async () => {
    const result = list(large, { perPage: 50 });
    expect(await collect(result)).toHaveLength(50);
    expect(result.notice).toBe('showing 50; more exist — use --all or --limit');
  });

  it('has no notice when everything fits', async () => {
    const result = list(small, { perPage: 100, page: Math.ceil(smallTotal / 100) });
    expect(await collect(result)).toHaveLength(smallTotal % 100 || 100);
    expect(result.notice).toBeUndefined();
  });

  it('stops after --limit records, across pages', async () => {
    const result = list(small, { limit: 130 });
    const ids = await collect(result);
    expect(ids).toHaveLength(130);
    expect(result.requests).toBe(2);
  });

  it('honours --limit together with --all (never fetches everything and ignores the limit)', async () => {
    const result = list(small, { all: true, limit: 130 });
    expect(await collect(result)).toHaveLength(130);
    expect(result.requests).toBe(2);
  });

  it('--all returns every record once, in order, with the page count known', async () => {
    const result = list(small, { all: true, perPage: 10 });
    const ids = await collect(result);
    expect(ids).toHaveLength(smallTotal);
    expect(new Set(ids).size).toBe(smallTotal);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(result.requests).toBe(Math.ceil(smallTotal / 10));
  });

  it('--all fetches concurrently without X-Total and keeps the order', async () => {
    const result = list(large, { all: true, concurrency: 6 });
    const ids = await collect(result);
    expect(ids).toHaveLength(10_121);
    expect(new Set(ids).size).toBe(10_121);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // 102 pages, plus at most the speculative requests past the end of one window.
    expect(result.requests).toBeGreaterThanOrEqual(102);
    expect(result.requests).toBeLessThanOrEqual(102 + 6);
    const log = large.requests().filter((r) => r.path.startsWith('/api/v4/users?page='));
    expect(log.length).toBeGreaterThan(0);
  });

  it('--all without X-Total requests nothing past the last page once any answer shows it', async () => {
    // 10,121 users: 102 pages of 100, the last one short. The pages before it answer late, so the last page's
    // answer arrives first: from then on no page past it is requested, although the window has room.
    large.fault({ method: 'GET', path: '^/users$', query: '(^|&)page=(9[5-9]|10[01])(&|$)', latency_ms: 300, times: 7 });
    const result = apiFor(large).list<{ id: number }>('/users', { order_by: 'id' }, { all: true, perPage: 100 });
    const ids = await collect(result);
    expect(ids).toHaveLength(10_121);
    expect(result.requests).toBe(102);
    await new Promise((resolve) => setTimeout(resolve, 100)); // anything sent late would be logged by now
    const pages = large.requests().filter((r) => r.path.includes('order_by=id')).map((r) => Number(/[?&]page=(\d+)/.exec(r.path)?.[1]));
    expect(pages).toHaveLength(102);
    expect(Math.max(...pages)).toBe(102);
  });

  it('--all without X-Total from a list the service counts up to 10,000 records sends nothing past the last page', async () => {
    // No count means more than 10,000 records: the 101 pages holding the first 10,001 exist and are fetched at
    // once; page 101 is short, so nothing follows it.
    uncounted.clearRequests();
    const result = apiFor(uncounted).list<{ id: number }>('/users', { order_by: 'id' }, { all: true, perPage: 100, countLimit: COUNT_LIMIT });
    expect(await collect(result)).toHaveLength(10_041);
    await new Promise((resolve) => setTimeout(resolve, 100)); // anything sent late would be logged by now
    expect(uncounted.requests().filter((r) => r.path.startsWith('/api/v4/users'))).toHaveLength(101);
    // The same list written as it came: the same count of requests, every record once.
    uncounted.clearRequests();
    const run = await uncounted.run(['users', 'list', '--all', '-o', 'ndjson']);
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(run.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).size).toBe(10_041);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(uncounted.requests().filter((r) => r.path.startsWith('/api/v4/users'))).toHaveLength(101);
  });

  it('--all between 10,000 and 50,000 records: nothing tells the last page before it answers, so at most one window of requests passes it', async () => {
    // The service (and the sandbox) omit the count above 10,000 records: only the short page 201 shows the end.
    const first = await fetch(`${middle.url}/users?per_page=100&page=150`, { headers: { 'PRIVATE-TOKEN': middle.adminToken } });
    expect([first.headers.get('x-total'), first.headers.get('x-total-pages'), first.headers.get('x-next-page')]).toEqual([null, null, '151']);
    middle.clearRequests();
    const result = apiFor(middle).list<{ id: number }>('/users', {}, { all: true, perPage: 100, countLimit: COUNT_LIMIT, concurrency: 8 });
    const ids = await collect(result);
    expect(new Set(ids).size).toBe(20_050);
    await new Promise((resolve) => setTimeout(resolve, 100)); // anything sent late would be logged by now
    const pages = middle.requests().filter((r) => r.path.startsWith('/api/v4/users')).map((r) => Number(/[?&]page=(\d+)/.exec(r.path)?.[1]));
    // Every page once; past page 201 only the pages already in flight when its answer came (at most 7 of 8).
    expect(new Set(pages).size).toBe(pages.length);
    expect(pages.filter((page) => page <= 201)).toHaveLength(201);
    expect(pages.filter((page) => page > 201).length).toBeLessThanOrEqual(7);
    expect(Math.max(...pages)).toBeLessThanOrEqual(208);
  });

  it('follows keyset Link headers for keyset-only lists', async () => {
    small.clearRequests();
    const result = apiFor(small).list<{ id: number }>('/users', { order_by: 'id', sort: 'asc' }, { all: true, perPage: 100, keysetOnly: true });
    const ids = await collect(result);
    expect(ids).toHaveLength(smallTotal);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(small.requests().every((r) => r.path.includes('pagination=keyset'))).toBe(true);
  });
});
