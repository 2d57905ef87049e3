import { beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { projects, repositories, tokens, users } from '../../sandbox/model.js';
import { addProject, addToken, addUser } from '../../sandbox/seed.js';

const sandbox = useTestSandbox();
let bob: string;
let alice: string;
beforeAll(async () => {
  bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
  alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
});

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);
const paths = (body: Array<{ path_with_namespace?: string; full_path?: string }>) => body.map((r) => r.path_with_namespace ?? r.full_path);

describe('sandbox: groups and subgroups', () => {
  it('creates a group (201, GroupDetail) with its creator as owner, and subgroups under it', async () => {
    const top = await call('POST', '/groups', { name: 'Fleet', path: 'fleet', description: 'many projects', visibility: 'internal' });
    expect(top.status).toBe(201);
    expect(top.body).toMatchObject({ name: 'Fleet', path: 'fleet', full_path: 'fleet', full_name: 'Fleet', visibility: 'internal', description: 'many projects', projects: [], shared_projects: [], shared_with_groups: [] });
    const members = (await call('GET', `/groups/${top.body.id}/members`)).body;
    expect(members.map((m: { username: string; access_level: number }) => [m.username, m.access_level])).toEqual([['root', 50]]);
    const sub = await call('POST', '/groups', { name: 'Team A', path: 'team-a', parent_id: top.body.id });
    expect(sub.body).toMatchObject({ full_path: 'fleet/team-a', full_name: 'Fleet / Team A', parent_id: top.body.id, visibility: 'private' });
    const deeper = await call('POST', '/groups', { name: 'Svc', path: 'svc', parent_id: sub.body.id });
    expect(deeper.body.full_path).toBe('fleet/team-a/svc');
    expect(paths((await call('GET', `/groups/${top.body.id}/subgroups`)).body)).toEqual(['fleet/team-a']);
    expect(paths((await call('GET', '/groups/fleet/descendant_groups')).body)).toEqual(['fleet/team-a/svc', 'fleet/team-a']);
  });

  it('refuses taken paths, bad visibility and bad input with the service\'s answers', async () => {
    expect(await call('POST', '/groups', { name: 'Fleet2', path: 'fleet' })).toEqual({ status: 400, body: { message: 'Failed to save group {:path=>["has already been taken"]}' } });
    expect((await call('POST', '/groups', { name: 'x', path: 'x', parent_id: 1, visibility: 'public' })).body.message).toMatch(/visibility_level.*parent group has a private visibility/);
    expect(await call('POST', '/groups', { path: 'nameless' })).toEqual({ status: 400, body: { error: 'name is missing' } });
    expect(await call('POST', '/groups', { name: 'n', path: 'n', visibility: 'secret' })).toEqual({ status: 400, body: { error: 'visibility does not have a valid value' } });
    // Developers may not create subgroups (subgroup_creation_level maintainer).
    expect((await call('POST', '/groups', { name: 'b', path: 'b', parent_id: 1 }, bob)).status).toBe(403);
  });

  it('lists groups with search, skip_groups, top_level_only and ordering; members see only their groups', async () => {
    const all = (await call('GET', '/groups?per_page=100')).body;
    expect(paths(all)).toEqual(expect.arrayContaining(['acme', 'fleet', 'fleet/team-a', 'fleet/team-a/svc']));
    expect(paths((await call('GET', '/groups?search=team')).body)).toEqual(['fleet/team-a']);
    const fleet = all.find((g: { full_path: string }) => g.full_path === 'fleet');
    expect(paths((await call('GET', `/groups?top_level_only=true&skip_groups[]=${fleet.id}`)).body)).toEqual(['acme']);
    expect(paths((await call('GET', '/groups?order_by=id&sort=desc&per_page=1')).body)).toEqual(['fleet/team-a/svc']);
    expect(paths((await call('GET', '/groups', undefined, bob)).body)).toEqual(['acme']);
    // all_available adds the internal groups bob can see.
    expect(paths((await call('GET', '/groups?all_available=true', undefined, bob)).body)).toEqual(['acme', 'fleet']);
    expect(await call('GET', '/groups?order_by=size')).toEqual({ status: 400, body: { error: 'order_by does not have a valid value' } });
  });

  it('updates (owner only), renames a path with everything below it, and shares with other groups', async () => {
    expect((await call('PUT', '/groups/fleet', { description: 'x' }, alice)).status).toBe(403); // internal: visible, not hers
    const updated = await call('PUT', '/groups/fleet%2Fteam-a', { path: 'team-alpha', project_creation_level: 'maintainer', lfs_enabled: false });
    expect(updated.body).toMatchObject({ full_path: 'fleet/team-alpha', project_creation_level: 'maintainer', lfs_enabled: false });
    expect((await call('GET', '/groups/fleet%2Fteam-alpha%2Fsvc')).body.full_path).toBe('fleet/team-alpha/svc');
    expect((await call('PUT', '/groups/fleet', { project_creation_level: 'everyone' })).status).toBe(400);
    const shared = await call('POST', '/groups/fleet/share', { group_id: 1, group_access: 30 });
    expect(shared.status).toBe(201);
    expect(shared.body.shared_with_groups).toEqual([{ group_id: 1, group_name: 'Acme', group_full_path: 'acme', group_access_level: 30, expires_at: null }]);
    expect((await call('POST', '/groups/fleet/share', { group_id: 1, group_access: 30 })).status).toBe(409);
    // Members of acme now reach fleet (at most Developer), so bob sees it.
    expect((await call('GET', '/groups/fleet', undefined, bob)).status).toBe(200);
    expect((await call('DELETE', '/groups/fleet/share/1')).status).toBe(204);
    expect((await call('GET', '/groups/fleet')).body.shared_with_groups).toEqual([]);
  });

  it('transfers a group under another and back to the top level', async () => {
    const moved = await call('POST', '/groups/fleet%2Fteam-alpha%2Fsvc/transfer', { group_id: 1 });
    expect(moved).toMatchObject({ status: 201, body: { full_path: 'acme/svc', parent_id: 1 } });
    expect((await call('POST', '/groups/acme/transfer', { group_id: moved.body.id })).status).toBe(400);
    const top = await call('POST', '/groups/acme%2Fsvc/transfer', {});
    expect(top.body).toMatchObject({ full_path: 'svc', parent_id: null });
  });
});

describe('sandbox: projects', () => {
  it('creates in a group and in the personal namespace, with the path from the name', async () => {
    const inGroup = await call('POST', '/projects', { name: 'Billing API', namespace_id: 'fleet', description: 'bills', topics: ['ruby', 'api'], initialize_with_readme: true });
    expect(inGroup.status).toBe(201);
    expect(inGroup.body).toMatchObject({
      name: 'Billing API', path: 'billing-api', path_with_namespace: 'fleet/billing-api', name_with_namespace: 'Fleet / Billing API', visibility: 'private',
      topics: ['ruby', 'api'], empty_repo: false, default_branch: 'main', namespace: { kind: 'group', full_path: 'fleet' },
      permissions: { project_access: null, group_access: { access_level: 50 } },
    });
    const project = projects(sandbox.db).find((p) => p.id === inGroup.body.id)!;
    expect(Object.keys(repositories(sandbox.db).find((r) => r.project_id === project.id)!.branches)).toEqual(['main']);
    const personal = await call('POST', '/projects', { path: 'scratch' });
    expect(personal.body).toMatchObject({ name: 'scratch', path_with_namespace: 'root/scratch', namespace: { kind: 'user', path: 'root' }, owner: { username: 'root' }, empty_repo: true });
    expect(await call('POST', '/projects', { name: 'Billing API', namespace_id: 'fleet' })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'], path: ['has already been taken'] } } });
    expect(await call('POST', '/projects', {})).toEqual({ status: 400, body: { error: 'name, path are missing, at least one parameter must be provided' } });
    expect((await call('POST', '/projects', { name: 'x', namespace_id: 'fleet' }, bob)).status).toBe(404);
  });

  it('creates as another user with Sudo, and an administrator creates for a user', async () => {
    const response = await fetch(`${sandbox.url}/projects`, {
      method: 'POST', headers: { 'PRIVATE-TOKEN': sandbox.adminToken, Sudo: 'bob', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bobs' }),
    });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { path_with_namespace: string }).path_with_namespace).toBe('bob/bobs');
    const forAlice = await call('POST', `/projects/user/${users(sandbox.db).find((u) => u.username === 'alice')!.id}`, { name: 'alices' });
    expect(forAlice.body.path_with_namespace).toBe('alice/alices');
    const notAdmin = await fetch(`${sandbox.url}/user`, { headers: { 'PRIVATE-TOKEN': bob, Sudo: 'alice' } });
    expect(notAdmin.status).toBe(403);
    expect(await notAdmin.json()).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });

  it('lists with the service\'s filters: owned, membership, search, archived, visibility, topic; others see only theirs', async () => {
    expect(paths((await call('GET', '/projects?owned=true&order_by=path&sort=asc')).body)).toEqual(['acme/api', 'fleet/billing-api', 'root/scratch', 'acme/web']);
    expect(paths((await call('GET', '/projects?membership=true', undefined, bob)).body)).toEqual(['bob/bobs', 'acme/web', 'acme/api']);
    expect(paths((await call('GET', '/projects?search=billing')).body)).toEqual(['fleet/billing-api']);
    expect(paths((await call('GET', '/projects?search=fleet&search_namespaces=true')).body)).toEqual(['fleet/billing-api']);
    expect(paths((await call('GET', '/projects?topic=ruby,api')).body)).toEqual(['fleet/billing-api']);
    await call('POST', '/projects/acme%2Fweb/archive');
    expect(paths((await call('GET', '/projects?archived=true')).body)).toEqual(['acme/web']);
    expect(paths((await call('GET', '/projects?archived=false&membership=true', undefined, bob)).body)).toEqual(['bob/bobs', 'acme/api']);
    expect((await call('POST', '/projects/acme%2Fweb/unarchive')).body.archived).toBe(false);
    expect(paths((await call('GET', '/projects?visibility=public')).body)).toEqual([]);
    expect(paths((await call('GET', '/projects?simple=true&search=scratch')).body)).toEqual(['root/scratch']);
    expect(Object.keys((await call('GET', '/projects?simple=true&search=scratch')).body[0])).not.toContain('permissions');
  });

  it('lists the projects of a group, with subgroups when asked, and of a user', async () => {
    const inSub = await call('POST', '/projects', { name: 'deep', namespace_id: 'fleet/team-alpha' });
    expect(inSub.status).toBe(201);
    expect(paths((await call('GET', '/groups/fleet/projects')).body)).toEqual(['fleet/billing-api']);
    expect(paths((await call('GET', '/groups/fleet/projects?include_subgroups=true&order_by=id&sort=asc')).body)).toEqual(['fleet/billing-api', 'fleet/team-alpha/deep']);
    expect(paths((await call('GET', '/users/bob/projects')).body)).toEqual(['bob/bobs']);
    expect((await call('GET', '/groups/fleet/projects', undefined, bob)).status).toBe(200); // internal group
    expect((await call('GET', '/groups/fleet%2Fteam-alpha/projects', undefined, bob)).status).toBe(404); // private
    // An external user sees no internal group, by itself or by its projects, as the group's own lists agree.
    const outsider = addToken(sandbox.db, addUser(sandbox.db, { username: 'outside-contractor', external: true }, new Date()), {}, new Date()).token;
    expect((await call('GET', '/groups/fleet', undefined, outsider)).status).toBe(404);
    expect((await call('GET', '/groups/fleet/projects', undefined, outsider)).status).toBe(404);
    expect(paths((await call('GET', '/groups?all_available=true', undefined, outsider)).body)).not.toContain('fleet');
  });

  it('updates settings a client reads back, renames, and refuses developers', async () => {
    const updated = await call('PUT', '/projects/fleet%2Fbilling-api', { description: 'Bills', merge_method: 'ff', issues_enabled: false, path: 'billing', visibility: 'internal' });
    expect(updated.body).toMatchObject({ description: 'Bills', merge_method: 'ff', issues_enabled: false, issues_access_level: 'disabled', path_with_namespace: 'fleet/billing', visibility: 'internal' });
    expect((await call('PUT', '/projects/fleet%2Fbilling', { visibility: 'public' })).body).toEqual({ message: { visibility_level: ['public is not allowed in a internal group.'] } });
    expect((await call('PUT', '/projects/acme%2Fapi', { description: 'x' }, bob)).status).toBe(403);
    expect((await call('PUT', '/projects/fleet%2Fbilling', { merge_method: 'octopus' })).status).toBe(400);
  });

  it('shares with a group, transfers between namespaces and lists the groups of a project', async () => {
    const link = await call('POST', '/projects/fleet%2Fbilling/share', { group_id: 1, group_access: 20 });
    expect(link).toMatchObject({ status: 201, body: { group_id: 1, group_access: 20, expires_at: null } });
    expect((await call('GET', '/projects/fleet%2Fbilling')).body.shared_with_groups).toEqual([{ group_id: 1, group_name: 'Acme', group_full_path: 'acme', group_access_level: 20, expires_at: null }]);
    expect((await call('GET', '/projects/fleet%2Fbilling', undefined, bob)).status).toBe(200); // via acme, at most Reporter
    expect((await call('PUT', '/projects/fleet%2Fbilling', { description: 'y' }, bob)).status).toBe(403);
    expect((await call('DELETE', '/projects/fleet%2Fbilling/share/1')).status).toBe(204);
    const moved = await call('PUT', '/projects/fleet%2Fteam-alpha%2Fdeep/transfer', { namespace: 'fleet' });
    expect(moved.body.path_with_namespace).toBe('fleet/deep');
    expect(paths((await call('GET', '/projects/fleet%2Fdeep/groups')).body)).toEqual(['fleet']);
    expect((await call('PUT', '/projects/fleet%2Fdeep/transfer', { namespace: 'root' })).body.path_with_namespace).toBe('root/deep');
  });

  it('deletes: personal projects at once, group projects marked (Premium) and restorable, then removed for good', async () => {
    expect(await call('DELETE', '/projects/root%2Fdeep')).toEqual({ status: 202, body: { message: '202 Accepted' } });
    expect((await call('GET', '/projects/root%2Fdeep')).status).toBe(404);
    expect((await call('DELETE', '/projects/fleet%2Fbilling')).status).toBe(202);
    const marked = (await call('GET', '/projects/fleet%2Fbilling')).body;
    expect(marked.marked_for_deletion_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await call('POST', '/projects/fleet%2Fbilling/restore')).body.marked_for_deletion_on).toBeNull();
    await call('DELETE', '/projects/fleet%2Fbilling');
    expect((await call('DELETE', '/projects/fleet%2Fbilling?permanently_remove=true&full_path=fleet%2Fbilling')).status).toBe(202);
    expect((await call('GET', '/projects/fleet%2Fbilling')).status).toBe(404);
    expect((await call('DELETE', '/projects/acme%2Fapi', undefined, alice)).status).toBe(403); // Owner only
  });
});

describe('sandbox: many projects in nested subgroups', () => {
  it('pages 500 projects of a group tree by offset and by keyset, in order and without gaps', async () => {
    const big = await startTestSandbox({ seed: 'empty' });
    try {
      const root = (await big.call('POST', '/groups', { name: 'Org', path: 'org' })).body;
      let parent = root.id;
      for (let level = 0; level < 4; level++) {
        const group = (await big.call('POST', '/groups', { name: `L${level}`, path: `l${level}`, parent_id: parent })).body;
        for (let i = 0; i < 125; i++) addProject(big.db, { name: `p${level}-${i}`, path: `p${level}-${i}`, namespace_id: group.id }, new Date());
        parent = group.id;
      }
      const first = await big.call('GET', `/groups/org/projects?include_subgroups=true&per_page=100&order_by=id&sort=asc`);
      expect(first.headers.get('x-total')).toBe('500');
      expect(first.headers.get('x-total-pages')).toBe('5');
      const seen: number[] = [];
      let url: string | undefined = `${big.url}/groups/org/projects?include_subgroups=true&pagination=keyset&order_by=id&sort=asc&per_page=100`;
      while (url) {
        const response: Response = await fetch(url, { headers: { 'PRIVATE-TOKEN': big.adminToken } });
        seen.push(...((await response.json()) as Array<{ id: number }>).map((p) => p.id));
        url = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      }
      expect(seen).toHaveLength(500);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
    } finally {
      await big.close();
    }
  });
});
