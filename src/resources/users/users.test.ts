import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import type { Api, ApiRequest } from '../../api/client.js';
import { ListResult, OFFSET_LIMIT } from '../../api/paginate.js';
import { keysetAfter } from './list.js';
import { users } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { startTestSandbox, type TestSandbox } from '../../../test/helpers/cli.js';

let sandbox: TestSandbox;
let big: TestSandbox;
beforeAll(async () => {
  [sandbox, big] = await Promise.all([startTestSandbox(), startTestSandbox({ users: 3000 })]);
  const now = new Date();
  addUser(sandbox.db, { username: 'carol', name: 'Carol External', external: true, created_at: '2024-01-10T00:00:00Z', two_factor_enabled: true }, now);
  addUser(sandbox.db, { username: 'dave', name: 'Dave Blocked', state: 'blocked', created_at: '2024-06-01T00:00:00Z', identities: [{ provider: 'ldapmain', extern_uid: 'cn=dave' }] }, now);
  addUser(sandbox.db, { username: 'ghost', name: 'Ghost User', user_type: 'ghost' }, now);
  addUser(sandbox.db, { username: 'erin', name: 'Erin Auditor', is_auditor: true, custom_attributes: { team: 'audit' } }, now);
});
afterAll(async () => {
  await sandbox.close();
  await big.close();
});

const usernames = async (argv: string[]): Promise<string[]> => {
  const result = await sandbox.run(['users', 'list', '--all', '-o', 'json', ...argv]);
  expect(result.code, result.stderr).toBe(0);
  return result.json<Array<{ username: string }>>().map((u) => u.username);
};

describe('users list', () => {
  it('sends every filter under its parameter name', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run([
      'users', 'list', '--username', 'alice', '--search', 'ali', '--active', '--external', '--humans', '--exclude-internal', '--without-project-bots',
      '--created-after', '2024-01-01T00:00:00Z', '--created-before', '2030-01-01', '--order-by', 'username', '--sort', 'asc', '--two-factor', 'enabled',
      '--without-projects', '--admins', '--auditors', '--saml-provider-id', '7', '--skip-ldap', '--custom-attribute', 'team=audit', '--with-custom-attributes',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // The caller is read first: these filters are for administrators.
    expect(sandbox.requests().map((r) => r.path.replace(/\?.*/, ''))).toEqual(['/api/v4/user', '/api/v4/users']);
    const url = new URL(sandbox.requests()[1].path, sandbox.rootUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      username: 'alice', search: 'ali', active: 'true', external: 'true', humans: 'true', exclude_internal: 'true', without_project_bots: 'true',
      created_after: '2024-01-01T00:00:00Z', created_before: '2030-01-01', order_by: 'username', sort: 'asc', two_factor: 'enabled',
      without_projects: 'true', admins: 'true', auditors: 'true', saml_provider_id: '7', skip_ldap: 'true', 'custom_attributes[team]': 'audit',
      with_custom_attributes: 'true',
    });
    const extern = await sandbox.run(['users', 'list', '--extern-uid', 'cn=dave', '--provider', 'ldapmain', '-o', 'json']);
    expect(extern.json().map((u: { username: string }) => u.username)).toEqual(['dave']);
  });

  it('filters as the service does', async () => {
    expect(await usernames(['--external'])).toEqual(['carol']);
    expect(await usernames(['--blocked'])).toEqual(['dave']);
    expect(await usernames(['--two-factor', 'enabled'])).toEqual(['carol']);
    expect(await usernames(['--created-before', '2024-03-01T00:00:00Z'])).toEqual(['carol']);
    expect(await usernames(['--auditors'])).toEqual(['erin']);
    expect(await usernames(['--custom-attribute', 'team=audit'])).toEqual(['erin']);
    expect(await usernames(['--skip-ldap', '--search', 'd'])).not.toContain('dave');
    expect(await usernames(['--exclude-humans', '--without-project-bots'])).toEqual(['ghost', 'service_account_deploy']);
    // The demo's sign-up pending approval is not active either (and not blocked: --blocked leaves it out).
    expect(await usernames(['--humans', '--exclude-active'])).toEqual(['dave', 'applicant']);
    expect(await usernames(['--admins'])).toEqual(['root']);
    const withoutProjects = await usernames(['--without-projects']);
    expect(withoutProjects).toContain('carol');
    expect(withoutProjects).not.toContain('alice');
    expect(await usernames(['--order-by', 'name', '--sort', 'asc', '--search', 'e', '--humans'])).toEqual(['alice', 'bob', 'carol', 'dave', 'erin', 'applicant']);
    expect(await usernames(['--order-by', 'username', '--sort', 'desc', '--search', 'e', '--humans'])).toEqual(['erin', 'dave', 'carol', 'bob', 'applicant', 'alice']);
  });

  it('prints TSV in a pipe and says when more exist', async () => {
    const result = await sandbox.run(['users', 'list', '--per-page', '2', '--order-by', 'id', '--sort', 'asc']);
    expect(result.stdout).toBe(`1\troot\tAdministrator\tactive\t${sandbox.rootUrl}/root\n2\talice\tAlice Maintainer\tactive\t${sandbox.rootUrl}/alice\n`);
    expect(result.stderr).toMatch(/showing 2 of \d+ — use --all or --limit/);
  });

  it('refuses contradictory or incomplete filters before sending', async () => {
    sandbox.clearRequests();
    for (const argv of [['--active', '--exclude-active'], ['--extern-uid', 'x'], ['--order-by', 'email'], ['--two-factor', 'maybe'], ['--created-after', 'yesterday'], ['--saml-provider-id', 'x']]) {
      expect((await sandbox.run(['users', 'list', ...argv])).code, argv.join(' ')).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('--all -o ndjson prints every one of 3,000 users once, in order, fetching pages concurrently', async () => {
    big.clearRequests();
    const result = await big.run(['users', 'list', '--all', '-o', 'ndjson']);
    expect(result.code).toBe(0);
    const ids = result.stdout.trim().split('\n').map((line) => JSON.parse(line).id as number);
    expect(ids).toHaveLength(users(big.db).length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(big.requests().filter((r) => r.path.startsWith('/api/v4/users')).length).toBeGreaterThanOrEqual(31);
  });

  it('--all -o ndjson and -o json write the records as the service sent them, byte for byte what parsing would write', async () => {
    addUser(sandbox.db, { username: 'zoe', name: 'Zoë "Q" \\ \u001b[2J \u009b </script>' }, new Date());
    const ndjson = await sandbox.run(['users', 'list', '--all', '--per-page', '3', '-o', 'ndjson']);
    const json = await sandbox.run(['users', 'list', '--all', '--per-page', '3', '-o', 'json']);
    expect([ndjson.code, json.code]).toEqual([0, 0]);
    const records = ndjson.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(records.map((r) => r.username)).toContain('zoe');
    expect(ndjson.stdout).toBe(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(json.stdout).toBe(`${JSON.stringify(records, null, 2)}\n`);
    // Reshaped output is parsed: the same records.
    const fields = await sandbox.run(['users', 'list', '--all', '--per-page', '3', '-o', 'ndjson', '--fields', 'id,username']);
    expect(fields.stdout).toBe(records.map((r) => `${JSON.stringify({ id: r.id, username: r.username })}\n`).join(''));
  });

  for (const format of ['ndjson', 'json']) {
    it(`--all -o ${format}: a malformed page mid-list is a server failure (exit 8), with no record of it written`, async () => {
      const broken = `[${'{"id":1,"username":"broken"},'.repeat(99)}{"id":1,"username":"broken"`;
      big.fault({ method: 'GET', path: '^/users$', query: '(^|&)page=5(&|$)', status: 200, body: broken, headers: { 'Content-Type': 'application/json', 'X-Next-Page': '6' } });
      const result = await big.run(['users', 'list', '--all', '-o', format]);
      expect(result.code, result.stderr).toBe(8);
      expect(result.stderr).toMatch(/malformed JSON \(GET \/users\)/);
      expect(result.stdout).not.toContain('broken');
      const written = format === 'json' ? result.json<unknown[]>() : result.stdout.trim().split('\n').map((line) => JSON.parse(line));
      expect(written).toHaveLength(400);
    });
  }

  it('a non-administrator gets the list item fields and 403 for extern_uid', async () => {
    const bob = users(sandbox.db).find((u) => u.username === 'bob')!;
    const token = addToken(sandbox.db, bob, { name: 'bob-list' }, new Date()).token;
    const list = await sandbox.run(['users', 'list', '--username', 'alice', '-o', 'json'], { env: { FORGECTL_TOKEN: token } });
    expect(Object.keys(list.json()[0]).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url']);
    const extern = await sandbox.run(['users', 'list', '--extern-uid', 'cn=dave', '--provider', 'ldapmain'], { env: { FORGECTL_TOKEN: token } });
    expect(extern.code).toBe(4);
  });

  it('a non-administrator asking for an administrator filter is refused (exit 4) instead of getting everyone', async () => {
    const bob = users(sandbox.db).find((u) => u.username === 'bob')!;
    const token = addToken(sandbox.db, bob, { name: 'bob-admins' }, new Date()).token;
    const everyone = await sandbox.run(['users', 'list', '-o', 'json'], { env: { FORGECTL_TOKEN: token } });
    expect(everyone.code, everyone.stderr).toBe(0);
    for (const args of [['--admins'], ['--two-factor', 'disabled', '--without-projects'], ['--custom-attribute', 'team=a']]) {
      const refused = await sandbox.run(['users', 'list', ...args, '-o', 'json'], { env: { FORGECTL_TOKEN: token } });
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`${args.filter((a) => a.startsWith('--')).join(', ')}: for administrators only`);
    }
    const admins = await sandbox.run(['users', 'list', '--admins', '-o', 'json']);
    expect(admins.code, admins.stderr).toBe(0);
    expect(admins.json<Array<{ username: string }>>().length).toBeLessThan(everyone.json<unknown[]>().length);
  });
});

describe('users list --all past the offset limit', () => {
  /** An in-memory instance of N users (id desc) that refuses offsets past 50,000 and serves keyset pages by cursor. */
  function fakeApi(total: number): { api: Api; requests: ApiRequest[] } {
    const ids = Array.from({ length: total }, (_, i) => total - i);
    const requests: ApiRequest[] = [];
    const page = (data: number[], headers: Record<string, string>) => ({ status: 200, header: (name: string) => headers[name.toLowerCase()], data: data.map((id) => ({ id })) });
    const serve = (request: ApiRequest): ReturnType<typeof page> => {
        const query = (request.query ?? {}) as Record<string, string | number>;
        const perPage = Number(query.per_page);
        if (query.pagination === 'keyset') {
          const after = Number(JSON.parse(Buffer.from(String(query.cursor), 'base64url').toString()).id);
          const start = ids.findIndex((id) => id < after);
          const slice = start < 0 ? [] : ids.slice(start, start + perPage);
          const more = start >= 0 && start + perPage < ids.length;
          const cursor = Buffer.from(JSON.stringify({ id: String(slice[slice.length - 1]), _kd: 'n' })).toString('base64url');
          return page(slice, more ? { link: `<http://x/api/v4/users?pagination=keyset&per_page=${perPage}&cursor=${cursor}>; rel="next"` } : {});
        }
        if (request.path.startsWith('http')) {
          const url = new URL(request.path);
          return serve({ ...request, path: '/users', query: Object.fromEntries(url.searchParams) });
        }
        const offset = (Number(query.page) - 1) * perPage;
        if (offset + perPage > OFFSET_LIMIT) throw new ApiError('Offset pagination has a maximum allowed offset of 50000', 405, 'GET', '/users', undefined);
        const slice = ids.slice(offset, offset + perPage);
        return page(slice, { 'x-next-page': offset + perPage < total ? String(Number(query.page) + 1) : '' });
    };
    const api = {
      async request(request: ApiRequest) {
        requests.push(request);
        return serve(request);
      },
      // The instance the next-page links point to (a link to another origin ends a list).
      url: (path: string) => (path.startsWith('http') ? path : `http://x/api/v4${path}`),
    };
    return { api: api as unknown as Api, requests };
  }

  it('switches to keyset after the last record of the offsets and returns every record once, in order', async () => {
    const { api, requests } = fakeApi(OFFSET_LIMIT + 250);
    const list = new ListResult<{ id: number }>(api, '/users', {}, { all: true, perPage: 100, keysetAfter: keysetAfter('id', 'desc') as never });
    const ids: number[] = [];
    for await (const user of list) ids.push(user.id);
    expect(ids).toHaveLength(OFFSET_LIMIT + 250);
    expect(ids[0]).toBe(OFFSET_LIMIT + 250);
    expect(ids[ids.length - 1]).toBe(1);
    expect(ids.every((id, i) => i === 0 || ids[i - 1] === id + 1)).toBe(true);
    const keyset = requests.filter((r) => (r.query as Record<string, unknown> | undefined)?.pagination === 'keyset' || r.path.startsWith('http'));
    expect(keyset.length).toBe(3); // 100 + 100 + 50 after the 500 offset pages
    expect(keyset[0].query).toMatchObject({ order_by: 'id', sort: 'desc', pagination: 'keyset' });
  });
});

describe('users get', () => {
  it('gets a user by id or username, with the administrator fields', async () => {
    const byName = await sandbox.run(['users', 'get', 'carol', '-o', 'json']);
    expect(byName.json()).toMatchObject({ username: 'carol', email: 'carol@example.com', two_factor_enabled: true, external: true, is_auditor: false, using_license_seat: true });
    const byId = await sandbox.run(['users', 'get', String(byName.json().id), '-o', 'json']);
    expect(byId.json().username).toBe('carol');
  });

  it('exits 5 for a user that does not exist', async () => {
    expect((await sandbox.run(['users', 'get', 'nobody'])).code).toBe(5);
    expect((await sandbox.run(['users', 'get', '987654'])).code).toBe(5);
  });
});
