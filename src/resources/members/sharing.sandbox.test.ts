import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { groups, users } from '../../sandbox/model.js';

/**
 * Sharing as the service documents it (Sharing projects and groups): a group shared with a group gives the invited
 * group's direct members access — not its inherited or shared members — and a project shared with a group gives its
 * direct and inherited members, and the direct members of the groups shared with it, access; each at the lower of
 * their role and the link's, until the link's expiry.
 */
const sandbox = useTestSandbox({ users: 4 });
const id = (username: string): number => users(sandbox.db).find((u) => u.username === username)!.id;
const levels = (body: Array<{ username: string; access_level: number }>): Record<string, number> => Object.fromEntries(body.map((m) => [m.username, m.access_level]));
let red: number;
let ops: number;

beforeAll(async () => {
  // sec (user1 Developer) > sec/red (user2 Maintainer); ops (user3 Owner); sec/red is shared with ops.
  const sec = (await sandbox.call('POST', '/groups', { name: 'Sec', path: 'sec' })).body.id as number;
  red = (await sandbox.call('POST', '/groups', { name: 'Red', path: 'red', parent_id: sec })).body.id as number;
  ops = (await sandbox.call('POST', '/groups', { name: 'Ops', path: 'ops' })).body.id as number;
  await sandbox.call('POST', `/groups/${sec}/members`, { user_id: id('user1'), access_level: 30 });
  await sandbox.call('POST', `/groups/${red}/members`, { user_id: id('user2'), access_level: 40 });
  await sandbox.call('POST', `/groups/${ops}/members`, { user_id: id('user3'), access_level: 50 });
  expect((await sandbox.call('POST', `/groups/${red}/share`, { group_id: ops, group_access: 40 })).status).toBe(201);
});

describe('sandbox: sharing groups and projects', () => {
  it('a group shared with a group: its direct members only, at most at the link\'s level, in the group and below', async () => {
    const shared = await sandbox.call('POST', '/groups/acme/share', { group_id: red, group_access: 30 });
    expect(shared.status).toBe(201);
    expect(shared.body.shared_with_groups).toEqual([{ group_id: red, group_name: 'Red', group_full_path: 'sec/red', group_access_level: 30, expires_at: null }]);
    expect(await sandbox.call('POST', '/groups/acme/share', { group_id: red, group_access: 30 })).toMatchObject({ status: 409 });
    const inAcme = levels((await sandbox.call('GET', '/groups/acme/members/all')).body);
    expect(inAcme.user2).toBe(30); // Maintainer of sec/red, capped at Developer
    expect(inAcme.user1).toBeUndefined(); // an inherited member of sec/red: no access
    expect(inAcme.user3).toBeUndefined(); // a member of a group shared with sec/red: no access
    expect(levels((await sandbox.call('GET', '/projects/acme%2Fweb/members/all')).body).user2).toBe(30);
    expect((await sandbox.call('GET', `/groups/acme/members/all/${id('user2')}`)).body.access_level).toBe(30);
  });

  it('a project shared with a group: its direct, inherited and shared members, at most at the link\'s level', async () => {
    const shared = await sandbox.call('POST', '/projects/acme%2Fapi/share', { group_id: red, group_access: 20, expires_at: '2099-01-31' });
    expect(shared).toMatchObject({ status: 201, body: { group_id: red, group_access: 20, expires_at: '2099-01-31' } });
    const inApi = (await sandbox.call('GET', '/projects/acme%2Fapi/members/all')).body as Array<{ username: string; access_level: number; expires_at: string | null }>;
    expect(levels(inApi)).toMatchObject({ user1: 20, user2: 30, user3: 20 });
    // Reached through the project's link alone, the membership ends with the link.
    expect(inApi.find((m) => m.username === 'user1')!.expires_at).toBe('2099-01-31');
    const project = (await sandbox.call('GET', '/projects/acme%2Fapi')).body;
    expect(project.shared_with_groups).toEqual([{ group_id: red, group_name: 'Red', group_full_path: 'sec/red', group_access_level: 20, expires_at: '2099-01-31' }]);
    // What the members can do follows: user1 is a Reporter of the project, and nothing in the group.
    const token = (await sandbox.call('POST', `/users/${id('user1')}/personal_access_tokens`, { name: 'read', scopes: ['api'], expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) })).body.token as string;
    expect((await sandbox.call('GET', '/projects/acme%2Fapi', undefined, token)).body.permissions).toMatchObject({ project_access: null });
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/members/all', undefined, token)).status).toBe(200);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/members', { user_id: id('user4'), access_level: 10 }, token)).status).toBe(403);
  });

  it('a link past its expiry gives nothing', async () => {
    const acme = groups(sandbox.db).find((g) => g.full_path === 'acme')!;
    acme.shared_with_groups![0].expires_at = '2001-01-01';
    try {
      expect(levels((await sandbox.call('GET', '/groups/acme/members/all')).body).user2).toBeUndefined();
      expect(levels((await sandbox.call('GET', '/projects/acme%2Fapi/members/all')).body).user2).toBe(20); // the project's own link stays
    } finally {
      acme.shared_with_groups![0].expires_at = null;
    }
  });

  it('lists what a group was invited to, and the groups invited to a group or project', async () => {
    const paths = (body: Array<{ full_path?: string; path_with_namespace?: string }>) => body.map((r) => r.full_path ?? r.path_with_namespace);
    expect(paths((await sandbox.call('GET', `/groups/${red}/groups/shared`)).body)).toEqual(['acme']);
    expect(paths((await sandbox.call('GET', `/groups/${red}/projects/shared`)).body)).toEqual(['acme/api']);
    expect(paths((await sandbox.call('GET', '/groups/acme/invited_groups')).body)).toEqual(['sec/red']);
    expect(paths((await sandbox.call('GET', '/projects/acme%2Fapi/invited_groups')).body)).toEqual(['sec/red']);
    expect(paths((await sandbox.call('GET', `/groups/${red}/invited_groups`)).body)).toEqual(['ops']);
    expect(paths((await sandbox.call('GET', `/groups/${ops}/groups/shared`)).body)).toEqual(['sec/red']);
  });
});
