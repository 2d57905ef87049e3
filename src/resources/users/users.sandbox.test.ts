import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox({ users: 230 });
let bobToken: string;
beforeAll(async () => {
  const now = new Date();
  addUser(sandbox.db, { username: 'zed', name: 'Aaron Zed', public_email: 'zed@public.example', created_at: '2023-05-05T00:00:00Z', identities: [{ provider: 'group_saml', extern_uid: 'z-1', saml_provider_id: 3 }] }, now);
  const bob = users(sandbox.db).find((u) => u.username === 'bob')!;
  bobToken = addToken(sandbox.db, bob, { name: 'bob-sandbox' }, now).token;
});

async function get(path: string, token = sandbox.adminToken) {
  const response = await fetch(path.startsWith('http') ? path : `${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': token } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

const nextLink = (headers: Headers): string | undefined => /<([^>]+)>; rel="next"/.exec(headers.get('link') ?? '')?.[1];

describe('sandbox: GET /users', () => {
  it('searches names and usernames in part, emails only whole (private ones for administrators)', async () => {
    expect((await get('/users?search=aaron')).body.map((u: { username: string }) => u.username)).toEqual(['zed']);
    expect((await get('/users?search=zed@public.example', bobToken)).body).toHaveLength(1);
    expect((await get('/users?search=zed@public', bobToken)).body).toHaveLength(0);
    expect((await get('/users?search=alice@example.com')).body.map((u: { username: string }) => u.username)).toEqual(['alice']);
    expect((await get('/users?search=alice@example.com', bobToken)).body).toHaveLength(0);
  });

  it('finds bots, service accounts and deactivated users for everyone, blocked and banned users for administrators only', async () => {
    const now = new Date();
    addUser(sandbox.db, { username: 'finder-service', user_type: 'service_account', bot: true }, now);
    addUser(sandbox.db, { username: 'finder-project-bot', user_type: 'project_bot', bot: true }, now);
    addUser(sandbox.db, { username: 'finder-ghost', user_type: 'ghost' }, now);
    addUser(sandbox.db, { username: 'finder-deactivated', state: 'deactivated' }, now);
    addUser(sandbox.db, { username: 'finder-blocked', state: 'blocked' }, now);
    addUser(sandbox.db, { username: 'finder-banned', state: 'banned' }, now);
    addUser(sandbox.db, { username: 'finder-ldap', state: 'ldap_blocked' }, now);
    const found = async (token: string) => ((await get('/users?search=finder-&per_page=100', token)).body as Array<{ username: string }>).map((u) => u.username).sort();
    expect(await found(bobToken)).toEqual(['finder-deactivated', 'finder-ghost', 'finder-project-bot', 'finder-service']);
    expect(await found(sandbox.adminToken)).toHaveLength(7);
    expect((await get('/users?username=finder-service', bobToken)).body.map((u: { username: string }) => u.username)).toEqual(['finder-service']);
    expect((await get('/users?username=finder-blocked', bobToken)).body).toEqual([]);
  });

  it('ignores created_after and created_before but for administrators, and checks them for everyone', async () => {
    const total = (token: string, query = '') => get(`/users?per_page=1${query}`, token).then((r) => r.headers.get('x-total'));
    const all = await total(bobToken);
    expect(await total(bobToken, '&created_before=2024-01-01T00:00:00Z')).toBe(all);
    expect(await total(sandbox.adminToken, '&created_before=2024-01-01T00:00:00Z')).toBe('1');
    expect((await get('/users?created_after=soon', bobToken)).status).toBe(400);
  });

  it('only true has an effect for active, blocked and external', async () => {
    const all = (await get('/users?per_page=1')).headers.get('x-total');
    expect((await get('/users?per_page=1&external=false')).headers.get('x-total')).toBe(all);
    expect((await get('/users?per_page=1&blocked=false')).headers.get('x-total')).toBe(all);
  });

  it('gives administrators their extra fields and others the list item fields', async () => {
    const admin = (await get('/users?username=zed')).body[0];
    expect(admin).toMatchObject({
      username: 'zed', email: 'zed@example.com', created_by: null, scim_identities: [], email_reset_offered_at: null, is_auditor: false,
      using_license_seat: true, provisioned_by_group_id: null, shared_runners_minutes_limit: null, identities: [{ provider: 'group_saml', extern_uid: 'z-1', saml_provider_id: 3 }],
    });
    expect(Object.keys((await get('/users?username=zed', bobToken)).body[0]).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url']);
    expect((await get('/users?saml_provider_id=3')).body.map((u: { username: string }) => u.username)).toEqual(['zed']);
  });

  it('ignores the administrator filters and ordering for others, but answers 403 to extern_uid with provider', async () => {
    const asBob = await get('/users?admins=true&order_by=username&sort=asc&per_page=100', bobToken);
    expect(asBob.body.length).toBeGreaterThan(1);
    expect(asBob.body[0].id).toBeGreaterThan(asBob.body[1].id);
    expect((await get('/users?extern_uid=z-1&provider=group_saml', bobToken))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('validates order_by, sort and datetimes as Grape does', async () => {
    expect(await get('/users?order_by=email')).toMatchObject({ status: 400, body: { error: 'order_by does not have a valid value' } });
    expect(await get('/users?sort=up')).toMatchObject({ status: 400, body: { error: 'sort does not have a valid value' } });
    expect(await get('/users?created_after=soon')).toMatchObject({ status: 400, body: { error: 'created_after is invalid' } });
  });

  it('pages by keyset in any allowed order, each user once, following Link only', async () => {
    for (const [orderBy, sort] of [['id', 'asc'], ['name', 'asc'], ['username', 'desc'], ['created_at', 'asc']]) {
      const offset = (await get(`/users?order_by=${orderBy}&sort=${sort}&per_page=100&page=1`)).body.concat(
        (await get(`/users?order_by=${orderBy}&sort=${sort}&per_page=100&page=2`)).body,
        (await get(`/users?order_by=${orderBy}&sort=${sort}&per_page=100&page=3`)).body,
      );
      const keyset: number[] = [];
      let url: string | undefined = `${sandbox.url}/users?pagination=keyset&order_by=${orderBy}&sort=${sort}&per_page=70`;
      while (url) {
        const page = await get(url);
        expect(page.headers.get('x-total')).toBeNull();
        keyset.push(...page.body.map((u: { id: number }) => u.id));
        url = nextLink(page.headers);
      }
      expect(keyset, `${orderBy} ${sort}`).toEqual(offset.map((u: { id: number }) => u.id));
    }
  });

  it('continues after a cursor built from a record (how forgectl leaves offsets at 50,000)', async () => {
    const firstPage = (await get('/users?per_page=100')).body;
    const last = firstPage[firstPage.length - 1];
    const cursor = Buffer.from(JSON.stringify({ id: String(last.id), _kd: 'n' })).toString('base64url');
    const next = (await get(`/users?pagination=keyset&order_by=id&sort=desc&per_page=100&cursor=${cursor}`)).body;
    expect(next[0].id).toBe(last.id - 1);
    expect((await get(`/users?pagination=keyset&order_by=id&sort=asc&per_page=5&id_after=10`)).body.map((u: { id: number }) => u.id)).toEqual([11, 12, 13, 14, 15]);
    expect(await get('/users?pagination=keyset&cursor=%%%')).toMatchObject({ status: 400 });
  });
});

describe('sandbox: GET /users/:id', () => {
  it('answers the full record, with private fields for administrators and the user themself', async () => {
    const alice = users(sandbox.db).find((u) => u.username === 'alice')!;
    const asAdmin = (await get(`/users/${alice.id}`)).body;
    expect(asAdmin).toMatchObject({ username: 'alice', email: 'alice@example.com', is_admin: false, bio: '', followers: 0 });
    const asBob = (await get(`/users/${alice.id}`, bobToken)).body;
    expect(asBob).toMatchObject({ username: 'alice', public_email: null });
    expect(asBob.email).toBeUndefined();
    expect(asBob).not.toHaveProperty('is_admin');
    expect(asBob).not.toHaveProperty('created_by');
    expect(asBob).toMatchObject({ web_url: expect.stringMatching(/\/alice$/), is_followed: false, work_information: null });
    expect(await get('/users/abc')).toMatchObject({ status: 400, body: { error: 'id is invalid' } });
    expect(await get('/users/99999')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });
});
