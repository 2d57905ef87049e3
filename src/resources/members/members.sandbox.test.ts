import { beforeAll, describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { findProject } from '../../sandbox/auth.js';
import { members, tokens, users } from '../../sandbox/model.js';

const sandbox = useTestSandbox({ users: 3 });
let alice: string;
let bob: string;
const id = (username: string): number => users(sandbox.db).find((u) => u.username === username)!.id;
beforeAll(async () => {
  alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
  bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
});

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);
const names = (body: Array<{ username: string; access_level: number }>) => body.map((m) => `${m.username}:${m.access_level}`);

describe('sandbox: members of groups and projects', () => {
  it('lists direct members with the service\'s fields, and filters by query and user_ids', async () => {
    const list = await call('GET', '/groups/acme/members');
    expect(names(list.body)).toEqual(['root:50', 'alice:40', 'bob:30', expect.stringMatching(/^group_1_bot_\w+:40$/), 'priya:10', 'service_account_deploy:20']);
    expect(Object.keys(list.body[0])).toEqual([
      'id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'access_level', 'created_at', 'expires_at', 'group_saml_identity', 'membership_state', 'member_role',
    ]);
    expect(names((await call('GET', '/groups/acme/members?query=ali')).body)).toEqual(['alice:40']);
    expect(names((await call('GET', `/groups/acme/members?user_ids[]=${id('bob')}&user_ids[]=99999`)).body)).toEqual(['bob:30']);
    expect((await call('GET', '/projects/acme%2Fapi/members')).body.map((m: { username: string }) => m.username)).toEqual([expect.stringMatching(/^project_1_bot/), 'priya']);
  });

  it("removing a project access token's bot user from the project revokes the token", async () => {
    const made = await call('POST', '/projects/acme%2Fweb/access_tokens', { name: 'bot-removal', scopes: ['read_api'], access_level: 30 });
    expect(made.status, made.text).toBe(201);
    expect((await call('GET', '/user', undefined, made.body.token)).status).toBe(200);
    expect((await call('DELETE', `/projects/acme%2Fweb/members/${made.body.user_id}`)).status).toBe(204);
    expect((await call('GET', '/user', undefined, made.body.token)).status).toBe(401);
  });

  it('adds (201), refuses a second time (409), changes (200) and removes (204)', async () => {
    const added = await call('POST', '/projects/acme%2Fapi/members', { user_id: id('user1'), access_level: 30, expires_at: '2099-01-01' });
    expect(added).toMatchObject({ status: 201, body: { username: 'user1', access_level: 30, expires_at: '2099-01-01', created_by: { username: 'root' } } });
    expect(await call('POST', '/projects/acme%2Fapi/members', { user_id: id('user1'), access_level: 30 })).toEqual({ status: 409, body: { message: 'Member already exists' } });
    expect(await call('POST', '/projects/acme%2Fapi/members', { user_id: id('user2'), access_level: 35 })).toEqual({ status: 400, body: { error: 'access_level does not have a valid value' } });
    expect(await call('POST', '/projects/acme%2Fapi/members', { access_level: 30 })).toMatchObject({ status: 400 });
    expect((await call('POST', '/projects/acme%2Fapi/members', { username: 'user2', access_level: 20 })).body.username).toBe('user2');
    expect((await call('PUT', `/projects/acme%2Fapi/members/${id('user1')}`, { access_level: 40 })).body.access_level).toBe(40);
    expect((await call('GET', `/projects/acme%2Fapi/members/${id('user1')}`)).body.access_level).toBe(40);
    expect((await call('DELETE', `/projects/acme%2Fapi/members/${id('user2')}`)).status).toBe(204);
    expect(await call('GET', `/projects/acme%2Fapi/members/${id('user2')}`)).toEqual({ status: 404, body: { message: '404 Member Not Found' } });
  });

  it('shows inherited members in /members/all, each once with the highest role', async () => {
    const all = names((await call('GET', '/projects/acme%2Fapi/members/all')).body);
    expect(all).toEqual(expect.arrayContaining(['root:50', 'alice:40', 'bob:30', 'user1:40']));
    expect(new Set(all.map((n) => n.split(':')[0])).size).toBe(all.length);
    expect((await call('GET', `/projects/acme%2Fapi/members/all/${id('alice')}`)).body.access_level).toBe(40);
    expect((await call('GET', `/projects/acme%2Fapi/members/${id('alice')}`)).status).toBe(404); // not a direct member
  });

  it('needs Maintainer to change members and Owner for owners; keeps the last owner of a group', async () => {
    expect((await call('POST', '/groups/acme/members', { user_id: id('user3'), access_level: 10 }, bob)).status).toBe(403);
    expect((await call('POST', '/groups/acme/members', { user_id: id('user3'), access_level: 10 }, alice)).status).toBe(201);
    expect((await call('PUT', `/groups/acme/members/${id('user3')}`, { access_level: 50 }, alice)).status).toBe(403);
    expect((await call('DELETE', `/groups/acme/members/${id('root')}`, undefined, alice)).status).toBe(403);
    expect((await call('DELETE', `/groups/acme/members/${id('root')}`)).status).toBe(403); // the last owner
    expect((await call('PUT', `/groups/acme/members/${id('user3')}`, { access_level: 50 })).status).toBe(200);
    expect((await call('DELETE', `/groups/acme/members/${id('root')}`)).status).toBe(204); // user3 owns it now
  });

  it('removing a group member removes their direct memberships of its subgroups and projects too, unless skip_subresources=true', async () => {
    const made = async (path: string, body: Record<string, unknown>) => {
      const answer = await call('POST', path, body);
      expect(answer.status, answer.text).toBe(201);
      return answer.body as { id: number };
    };
    const acme = (await call('GET', '/groups/acme')).body.id as number;
    const platform = await made('/groups', { name: 'Platform', path: 'platform', parent_id: acme });
    const tools = await made('/groups', { name: 'Tools', path: 'tools', parent_id: platform.id });
    const cli = await made('/projects', { name: 'cli', path: 'cli', namespace_id: tools.id });
    const elsewhere = await made('/groups', { name: 'Elsewhere', path: 'elsewhere' });
    const user = await made('/users', { username: 'cascade', name: 'Cascade', email: 'cascade@example.com', password: 'a-long-password-1' });
    const join = async () => {
      for (const path of ['/groups/acme', `/groups/${platform.id}`, `/groups/${tools.id}`, `/projects/${cli.id}`, '/projects/acme%2Fweb', `/groups/${elsewhere.id}`]) {
        if ((await call('GET', `${path}/members/${user.id}`)).status === 404) await made(`${path}/members`, { user_id: user.id, access_level: 30 });
      }
    };
    const sources = async () => ((await call('GET', `/users/${user.id}/memberships`)).body as Array<{ source_id: number; source_type: string }>).map((m) => `${m.source_type} ${m.source_id}`).sort();
    await join();
    expect(await sources()).toHaveLength(6);
    expect((await call('DELETE', `/groups/acme/members/${user.id}?skip_subresources=true`)).status).toBe(204);
    expect(await sources()).toHaveLength(5);
    await join();
    expect((await call('DELETE', `/groups/acme/members/${user.id}?unassign_issuables=true`)).status).toBe(204);
    expect(await sources()).toEqual([`Namespace ${elsewhere.id}`]);
    // A project's removal is that membership alone.
    await join();
    expect((await call('DELETE', `/projects/${cli.id}/members/${user.id}`)).status).toBe(204);
    expect(await sources()).toHaveLength(5);
  });

  it('lists a user\'s memberships for administrators, by type', async () => {
    const memberships = (await call('GET', `/users/${id('user1')}/memberships`)).body;
    expect(memberships).toEqual([{ source_id: 1, source_name: 'api', source_type: 'Project', access_level: 40 }]);
    expect((await call('GET', `/users/${id('user3')}/memberships?type=Namespace`)).body).toEqual([{ source_id: 1, source_name: 'Acme', source_type: 'Namespace', access_level: 50 }]);
    expect(await call('GET', `/users/${id('user3')}/memberships?type=Invalid`)).toEqual({ status: 400, body: { error: 'type does not have a valid value' } });
    expect((await call('GET', `/users/${id('user3')}/memberships`, undefined, alice)).status).toBe(403);
  });

  it("lists a user's direct memberships in a top-level group's hierarchy (the billable member's memberships): for its Owners, for the users it bills", async () => {
    const path = (user: number | string, group = 'acme') => `/groups/${group}/billable_members/${user}/memberships`;
    const acme = (await call('GET', '/groups/acme')).body as { id: number; web_url: string };
    const api = (await call('GET', '/projects/acme%2Fapi')).body as { id: number; web_url: string };
    const membership = { id: expect.any(Number), created_at: expect.any(String), expires_at: null };
    const expected = [
      { ...membership, source_id: acme.id, source_full_name: 'Acme', source_members_url: `${acme.web_url}/-/group_members`, access_level: { string_value: 'Guest', integer_value: 10 } },
      { ...membership, source_id: api.id, source_full_name: 'Acme / api', source_members_url: `${api.web_url}/-/project_members`, access_level: { string_value: 'Maintainer', integer_value: 40 } },
    ];
    expect(await call('GET', path(id('priya')))).toEqual({ status: 200, body: expected });
    // An Owner who is not an administrator reads them too; the answer has the service's fields in its order.
    const owner = sandbox.tokenWithRole('owner');
    const asOwner = await call('GET', path(id('priya')), undefined, owner);
    expect(asOwner.body).toEqual(expected);
    expect(Object.keys(asOwner.body[0])).toEqual(['id', 'source_id', 'source_full_name', 'source_members_url', 'created_at', 'expires_at', 'access_level']);
    // 400 for a Maintainer and for a subgroup; 404 for no such user, for a bot, and for a user with no membership there.
    const badRequest = { status: 400, body: { message: '400 Bad request' } };
    expect(await call('GET', path(id('priya')), undefined, alice)).toEqual(badRequest);
    expect(await call('GET', path(id('priya'), 'acme%2Fplatform'))).toEqual(badRequest);
    expect(await call('GET', path('x'))).toEqual({ status: 400, body: { error: 'user_id is invalid' } });
    expect(await call('GET', path(99999))).toEqual({ status: 404, body: { message: '404 Not found' } });
    const loner = (await call('POST', '/users', { username: 'loner', name: 'Loner', email: 'loner@example.com', password: 'a-long-password-1' })).body.id as number;
    for (const other of [id('service_account_deploy'), loner]) expect(await call('GET', path(other))).toEqual({ status: 404, body: { message: '404 User Not Found' } });
  });

  it('leaves out a membership from the start of its expiry day, as the service removes it then', async () => {
    const project = findProject(sandbox.db, 'acme/web').id;
    const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    members(sandbox.db).push(
      { source_type: 'project', source_id: project, user_id: id('user2'), access_level: 30, created_at: '2026-01-01T00:00:00Z', expires_at: day(0) },
      { source_type: 'project', source_id: project, user_id: id('user3'), access_level: 30, created_at: '2026-01-01T00:00:00Z', expires_at: day(1) },
    );
    for (const list of ['/projects/acme%2Fweb/members', '/projects/acme%2Fweb/members/all']) {
      const usernames = (await call('GET', list)).body.map((m: { username: string }) => m.username);
      expect(usernames, list).toContain('user3');
      expect(usernames, list).not.toContain('user2');
    }
    expect((await call('GET', `/projects/acme%2Fweb/members/${id('user2')}`)).status).toBe(404);
    expect((await call('GET', `/projects/acme%2Fweb/members/all/${id('user2')}`)).status).toBe(404);
    expect((await call('GET', `/projects/acme%2Fweb/members/${id('user3')}`)).status).toBe(200);
    // An expired Owner membership in the group does not hide the user's Developer one in force below it.
    members(sandbox.db).push(
      { source_type: 'group', source_id: findProject(sandbox.db, 'acme/web').namespace_id, user_id: id('user1'), access_level: 50, created_at: '2026-01-01T00:00:00Z', expires_at: day(-1) },
      { source_type: 'project', source_id: project, user_id: id('user1'), access_level: 30, created_at: '2026-01-01T00:00:00Z', expires_at: null },
    );
    const all = (await call('GET', `/projects/acme%2Fweb/members/all/${id('user1')}`)).body;
    expect(all.access_level).toBe(30);
  });
});
