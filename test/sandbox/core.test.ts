import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';
import { tokens, users } from '../../src/sandbox/model.js';
import { addToken } from '../../src/sandbox/seed.js';

const sandbox = useTestSandbox({ users: 10_050 });

async function get(path: string, headers: Record<string, string> = { 'PRIVATE-TOKEN': sandbox.adminToken }) {
  const response = await fetch(`${sandbox.url}${path}`, { headers });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json');
  return { status: response.status, headers: response.headers, body: text && json ? JSON.parse(text) : undefined, text };
}

describe('sandbox: authentication as real instances answer it', () => {
  it('accepts PRIVATE-TOKEN, Authorization: Bearer and private_token', async () => {
    expect((await get('/user')).body.username).toBe('root');
    expect((await get('/user', { Authorization: `Bearer ${sandbox.adminToken}` })).body.username).toBe('root');
    expect((await get(`/user?private_token=${sandbox.adminToken}`, {})).status).toBe(200);
  });

  it('answers 401 to no token or an unknown one, and invalid_token to revoked and expired tokens', async () => {
    expect(await get('/user', {})).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await get('/user', { 'PRIVATE-TOKEN': 'glpat-nope' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const root = users(sandbox.db).find((u) => u.username === 'root')!;
    const revoked = addToken(sandbox.db, root, { revoked: true, active: false }, new Date());
    const expired = addToken(sandbox.db, root, { expires_at: '2020-01-01', active: false }, new Date());
    const r = await get('/user', { 'PRIVATE-TOKEN': revoked.token });
    expect(r).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: expect.stringContaining('revoked') } });
    expect(r.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await get('/user', { 'PRIVATE-TOKEN': expired.token })).toMatchObject({ status: 401, body: { error: 'invalid_token', error_description: expect.stringContaining('expired') } });
  });

  it('answers 403 insufficient_scope when the token lacks the scope', async () => {
    const root = users(sandbox.db).find((u) => u.username === 'root')!;
    const repoOnly = addToken(sandbox.db, root, { scopes: ['read_repository'] }, new Date());
    expect(await get('/projects/1', { 'PRIVATE-TOKEN': repoOnly.token })).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(tokens(sandbox.db).find((t) => t.id === repoOnly.id)!.last_used_at).not.toBeNull();
  });

  it('hides private projects from non-members (404) and finds projects by encoded path', async () => {
    const outsider = users(sandbox.db).find((u) => u.username === 'user1')!;
    const token = addToken(sandbox.db, outsider, {}, new Date());
    expect(await get('/projects/acme%2Fapi', { 'PRIVATE-TOKEN': token.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await get('/projects/acme%2Fapi')).body.path_with_namespace).toBe('acme/api');
    expect((await get('/projects/acme/api')).status).toBe(404); // an unencoded slash does not match the route
  });
});

describe('sandbox: pagination headers (api-facts §3)', () => {
  it('sends offset headers, with an empty X-Next-Page on the last page', async () => {
    const only = await get('/users?per_page=100&username=alice');
    expect(only.headers.get('x-next-page')).toBe('');
    expect(only.headers.get('x-prev-page')).toBe('');
    expect(only.headers.get('x-total')).toBe('1');
    expect(only.headers.get('x-total-pages')).toBe('1');
    expect(only.headers.get('link')).toContain('rel="first"');
    expect(only.headers.get('link')).toContain('rel="last"');
    expect(only.headers.get('link')).not.toContain('rel="next"');
    const defaults = await get('/groups');
    expect(defaults.headers.get('x-per-page')).toBe('20');
  });

  it('omits X-Total, X-Total-Pages and rel="last" above 10,000 records', async () => {
    const page = await get('/users?per_page=100&page=2');
    expect(page.body).toHaveLength(100);
    expect(page.headers.get('x-total')).toBeNull();
    expect(page.headers.get('x-total-pages')).toBeNull();
    expect(page.headers.get('x-next-page')).toBe('3');
    expect(page.headers.get('x-prev-page')).toBe('1');
    expect(page.headers.get('link')).not.toContain('rel="last"');
    expect(page.headers.get('link')).toContain('rel="next"');
  });

  it('keyset pages carry only Link rel="next", and none at the end', async () => {
    const first = await get('/users?pagination=keyset&per_page=5000&order_by=id&sort=asc');
    expect(first.headers.get('x-next-page')).toBeNull();
    expect(first.headers.get('x-total')).toBeNull();
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link')!)![1];
    const second = await fetch(next, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    const body = (await second.json()) as Array<{ id: number }>;
    expect(body[0].id).toBeGreaterThan(first.body[first.body.length - 1].id);
  });

  it('refuses offsets beyond 50,000 on keyset-capable endpoints and keyset where unsupported', async () => {
    expect(await get('/users?per_page=100&page=501')).toMatchObject({ status: 405, body: { error: expect.stringContaining('maximum allowed offset of 50000') } });
    expect(await get('/groups?pagination=keyset')).toMatchObject({ status: 405, body: { error: 'Keyset pagination is not yet available for this type of request' } });
  });
});

describe('sandbox: errors, headers and faults', () => {
  it('answers unknown routes with the Grape body and a request id; no RateLimit headers without a throttle', async () => {
    const response = await get('/no/such/route');
    expect(response).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect(response.headers.get('ratelimit-limit')).toBeNull();
    expect(response.headers.get('x-request-id')).toMatch(/^\w+$/);
  });

  it('injects faults through the control endpoint and logs requests', async () => {
    await fetch(`${sandbox.rootUrl}/-/sandbox/requests`, { method: 'DELETE' });
    const added = await fetch(`${sandbox.rootUrl}/-/sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '^/version$', status: 429, retry_after: 7 }) });
    expect(added.status).toBe(201);
    const limited = await get('/version');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.text).toBe('Retry later\n');
    expect((await get('/version')).status).toBe(200);
    const log = (await (await fetch(`${sandbox.rootUrl}/-/sandbox/requests`)).json()) as Array<{ status: number }>;
    expect(log.map((entry) => entry.status)).toEqual([429, 200]);
  });

  it('answer_latency_ms holds the answer back after the request was processed', async () => {
    sandbox.faults.add({ method: 'POST', path: '/access_tokens$', answer_latency_ms: 1500 });
    let answered = false;
    const creating = fetch(`${sandbox.url}/groups/acme/access_tokens`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': sandbox.adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'held-back', scopes: ['api'] }),
    }).finally(() => (answered = true));
    const names = async () => ((await get('/groups/acme/access_tokens')).body as Array<{ name: string }>).map((token) => token.name);
    while (!(await names()).includes('held-back')) await new Promise((resolve) => setTimeout(resolve, 10));
    // Processed (the token exists), but the client has no answer yet.
    expect(answered).toBe(false);
    expect((await creating).status).toBe(201);
  });

  it("drop: 'body' cuts the answer one byte short of its Content-Length", async () => {
    sandbox.faults.add({ method: 'GET', path: '^/version$', drop: 'body' });
    const response = await fetch(`${sandbox.url}/version`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });
});
