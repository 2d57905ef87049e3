import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { members, tokens, users } from '../../sandbox/model.js';
import { placements } from '../../api/resource.js';
import { accessTokens } from './resource.js';
import { Router } from '../../sandbox/router.js';
import { tokensModule } from './sandbox.js';

const sandbox = useTestSandbox();
let alice: string;
beforeAll(async () => {
  alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
});

async function call(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${sandbox.rootUrl}/api/v4${path}`, {
    method,
    headers: { ...(token ? { 'PRIVATE-TOKEN': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
const admin = (): string => sandbox.adminToken;

async function createGroupToken(fields: Record<string, unknown> = {}): Promise<any> {
  const created = await call('POST', '/groups/acme/access_tokens', admin(), { name: 'bot', scopes: ['api'], access_level: 40, expires_at: day(30), ...fields });
  expect(created.status).toBe(201);
  return created.body;
}

describe('group and project access tokens', () => {
  it('creates a token with its bot user (201, value only on creation)', async () => {
    const created = await createGroupToken({ name: 'ci', description: 'for CI', scopes: ['read_api', 'self_rotate'], access_level: 30 });
    expect(created).toMatchObject({ name: 'ci', description: 'for CI', scopes: ['read_api', 'self_rotate'], access_level: 30, active: true, revoked: false, expires_at: day(30), last_used_at: null });
    expect(created.token).toMatch(/^glpat-/);
    const bot = users(sandbox.db).find((u) => u.id === created.user_id)!;
    expect(bot).toMatchObject({ bot: true, bot_of: { type: 'group', id: 1 } });
    expect(members(sandbox.db).find((m) => m.user_id === bot.id)).toMatchObject({ source_type: 'group', source_id: 1, access_level: 30 });

    const read = await call('GET', `/groups/acme/access_tokens/${created.id}`, admin());
    expect(read.status).toBe(200);
    expect(read.body.token).toBeUndefined();
    expect(Object.keys(read.body).sort()).toEqual(['access_level', 'active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id']);
  });

  it('applies the creation rules: Owner only, required fields, scopes, levels, expiry within a year', async () => {
    expect((await call('POST', '/groups/acme/access_tokens', alice, { name: 'x', scopes: ['api'] })).status).toBe(403);
    expect((await call('POST', '/groups/acme/access_tokens', admin(), { scopes: ['api'] })).body).toEqual({ error: 'name is missing' });
    expect((await call('POST', '/groups/acme/access_tokens', admin(), { name: 'x' })).body).toEqual({ error: 'scopes is missing' });
    expect((await call('POST', '/groups/acme/access_tokens', admin(), { name: 'x', scopes: ['sudo'] })).status).toBe(400);
    expect((await call('POST', '/groups/acme/access_tokens', admin(), { name: 'x', scopes: ['api'], access_level: 35 })).status).toBe(400);
    const tooLate = await call('POST', '/groups/acme/access_tokens', admin(), { name: 'x', scopes: ['api'], expires_at: day(400) });
    expect(tooLate.status).toBe(400);
    expect(tooLate.body.message.expires_at[0]).toMatch(/must be before/);
    const defaulted = await call('POST', '/groups/acme/access_tokens', admin(), { name: 'x', scopes: ['api'] });
    expect(defaulted.body).toMatchObject({ access_level: 40, expires_at: day(365) });
    // Project tokens: Maintainer is enough, and alice is one through the group.
    const project = await call('POST', '/projects/acme%2Fapi/access_tokens', alice, { name: 'p', scopes: ['read_repository'], access_level: 30 });
    expect(project.status).toBe(201);
    expect((await call('POST', '/projects/acme%2Fapi/access_tokens', alice, { name: 'p', scopes: ['api'], access_level: 50 })).status).toBe(400);
  });

  it('lists with the spec filters and sorts, and seeds tokens expiring 30 days or more ahead', async () => {
    const list = await call('GET', '/groups/acme/access_tokens?sort=expires_asc&state=active', admin());
    expect(list.status).toBe(200);
    const expiries = list.body.map((t: any) => t.expires_at);
    expect(expiries).toEqual([...expiries].sort());
    expect(list.body.find((t: any) => t.name === 'acme-ci')).toMatchObject({ scopes: ['api'], access_level: 40 });
    for (const t of tokens(sandbox.db).filter((t) => ['acme-ci', 'api-deploy'].includes(t.name))) expect(t.expires_at! >= day(30)).toBe(true);

    const searched = await call('GET', '/groups/acme/access_tokens?search=ACME-C', admin());
    expect(searched.body.map((t: any) => t.name)).toEqual(['acme-ci']);
    expect((await call('GET', `/groups/acme/access_tokens?expires_before=${day(31)}&expires_after=${day(29)}`, admin())).body.every((t: any) => t.expires_at === day(30))).toBe(true);
    expect((await call('GET', '/groups/acme/access_tokens?sort=bogus', admin())).status).toBe(400);
    expect((await call('GET', '/groups/acme/access_tokens', alice)).status).toBe(403);
    expect((await call('GET', '/projects/acme%2Fapi/access_tokens', alice)).status).toBe(200);
  });

  it('reads `self` and updates last_used_at on use', async () => {
    const created = await createGroupToken();
    const self = await call('GET', '/groups/acme/access_tokens/self', created.token);
    expect(self.status).toBe(200);
    expect(self.body.id).toBe(created.id);
    expect(self.body.last_used_at).not.toBeNull();
    expect((await call('GET', '/groups/acme/access_tokens/self', admin())).status).toBe(404);
  });

  it('rotates: new active token, old revoked at once, one week by default, at most a year', async () => {
    const created = await createGroupToken();
    const rotated = await call('POST', '/groups/acme/access_tokens/self/rotate', created.token);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ name: 'bot', active: true, revoked: false, scopes: ['api'], access_level: 40, expires_at: day(7), user_id: created.user_id });
    expect(rotated.body.id).not.toBe(created.id);
    expect(rotated.body.token).not.toBe(created.token);
    const old = await call('GET', '/groups/acme/access_tokens/self', created.token);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_token');
    expect((await call('GET', '/groups/acme/access_tokens/self', rotated.body.token)).status).toBe(200);
    expect((await call('GET', `/groups/acme/access_tokens/${created.id}`, admin())).body).toMatchObject({ revoked: true, active: false });

    const byOwner = await call('POST', `/groups/acme/access_tokens/${rotated.body.id}/rotate`, admin(), { expires_at: day(90) });
    expect(byOwner.body.expires_at).toBe(day(90));
    const tooLate = await call('POST', `/groups/acme/access_tokens/${byOwner.body.id}/rotate`, admin(), { expires_at: day(366) });
    expect(tooLate.status).toBe(400);
  });

  it('detects reuse: presenting a rotated token again revokes the whole family', async () => {
    const created = await createGroupToken();
    const first = await call('POST', '/groups/acme/access_tokens/self/rotate', created.token);
    expect(first.status).toBe(200);
    const reuse = await call('POST', '/groups/acme/access_tokens/self/rotate', created.token);
    expect(reuse.status).toBe(401);
    expect((await call('GET', '/groups/acme/access_tokens/self', first.body.token)).status).toBe(401);

    // The same through an owner rotating the old id again.
    const other = await createGroupToken();
    const next = await call('POST', `/groups/acme/access_tokens/${other.id}/rotate`, admin());
    expect((await call('POST', `/groups/acme/access_tokens/${other.id}/rotate`, admin())).status).toBe(401);
    expect((await call('GET', `/groups/acme/access_tokens/${next.body.id}`, admin())).body.revoked).toBe(true);
  });

  it('answers the rotate error table: 401, 403, 404, 405', async () => {
    const narrow = await createGroupToken({ scopes: ['read_api'] });
    const forbidden = await call('POST', '/groups/acme/access_tokens/self/rotate', narrow.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe('insufficient_scope');
    const selfRotate = await createGroupToken({ scopes: ['self_rotate'] });
    expect((await call('POST', '/groups/acme/access_tokens/self/rotate', selfRotate.token)).status).toBe(200);

    const bot = await createGroupToken({ access_level: 50 });
    expect((await call('POST', `/groups/acme/access_tokens/${narrow.id}/rotate`, bot.token)).status).toBe(401);
    expect((await call('POST', '/groups/acme/access_tokens/999999/rotate', admin())).status).toBe(404);
    expect((await call('POST', '/projects/acme%2Fapi/access_tokens/999999/rotate', alice)).status).toBe(401);
    expect((await call('POST', '/groups/acme/access_tokens/self/rotate', undefined)).status).toBe(401);
    expect((await call('POST', '/groups/acme/access_tokens/self/rotate', alice)).status).toBe(405);
    expect((await call('POST', '/personal_access_tokens/self/rotate', bot.token)).status).toBe(405);
  });

  it('revokes with 204, then 400 when already revoked, 404 when missing', async () => {
    const created = await createGroupToken();
    const revoked = await fetch(`${sandbox.rootUrl}/api/v4/groups/acme/access_tokens/${created.id}`, { method: 'DELETE', headers: { 'PRIVATE-TOKEN': admin() } });
    expect(revoked.status).toBe(204);
    expect(await revoked.text()).toBe('');
    expect((await call('DELETE', `/groups/acme/access_tokens/${created.id}`, admin())).status).toBe(400);
    expect((await call('DELETE', '/groups/acme/access_tokens/999999', admin())).status).toBe(404);
    expect((await call('GET', '/groups/acme/access_tokens/self', created.token)).status).toBe(401);
  });
});

describe('personal access tokens', () => {
  it('lists own tokens for users, everyone\'s for administrators; user_id of another user is 401', async () => {
    const own = await call('GET', '/personal_access_tokens', alice);
    expect(own.body.map((t: any) => t.name)).toEqual(['alice-token']);
    const aliceId = own.body[0].user_id;
    expect((await call('GET', `/personal_access_tokens?user_id=${aliceId + 1}`, alice)).status).toBe(401);
    const all = await call('GET', '/personal_access_tokens?per_page=100', admin());
    expect(all.body.map((t: any) => t.name)).toEqual(expect.arrayContaining(['alice-token', 'bob-token', 'sandbox-admin']));
    expect((await call('GET', `/personal_access_tokens?user_id=${aliceId}`, admin())).body.map((t: any) => t.name)).toEqual(['alice-token']);
  });

  it('creates for a user (administrators only), rotates self and by id, revokes self', async () => {
    const bob = users(sandbox.db).find((u) => u.username === 'bob')!;
    expect((await call('POST', `/users/${bob.id}/personal_access_tokens`, alice, { name: 'x', scopes: ['api'] })).status).toBe(403);
    const created = await call('POST', `/users/${bob.id}/personal_access_tokens`, admin(), { name: 'bob-cron', scopes: ['api'], expires_at: day(20) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'bob-cron', user_id: bob.id, token: expect.stringMatching(/^glpat-/) });

    const rotated = await call('POST', '/personal_access_tokens/self/rotate', created.body.token, { expires_at: day(60) });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ name: 'bob-cron', expires_at: day(60) });
    expect((await call('POST', `/personal_access_tokens/${rotated.body.id}/rotate`, alice)).status).toBe(401);
    const byAdmin = await call('POST', `/personal_access_tokens/${rotated.body.id}/rotate`, admin());
    expect(byAdmin.status).toBe(200);

    const del = await fetch(`${sandbox.rootUrl}/api/v4/personal_access_tokens/self`, { method: 'DELETE', headers: { 'PRIVATE-TOKEN': byAdmin.body.token } });
    expect(del.status).toBe(204);
    expect((await call('GET', '/personal_access_tokens/self', byAdmin.body.token)).status).toBe(401);
  });
});

describe('the routes of the access token declaration', () => {
  it('are served as declared, each parameter under the name the declaration gives it', () => {
    const router = new Router();
    tokensModule.routes(router, new Router());
    for (const placement of placements(accessTokens)) {
      for (const route of Object.values(placement.routes)) {
        const [method, pattern] = route.split(' ');
        const names = [...pattern.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
        const path = pattern.replace(/\{([a-z_]+)\}/g, (_, name: string) => (name === 'token_id' ? '7' : `value-of-${name}`));
        const served = router.match(method, path);
        expect(served, route).toBeDefined();
        expect(served!.params, route).toEqual(Object.fromEntries(names.map((name) => [name, name === 'token_id' ? '7' : `value-of-${name}`])));
      }
    }
  });
});
