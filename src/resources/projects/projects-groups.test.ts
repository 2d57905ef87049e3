import { beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../../sandbox/model.js';
import { addGroup, addProject } from '../../sandbox/seed.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
beforeAll(() => {
  const now = new Date();
  const platform = addGroup(sandbox.db, { name: 'Platform', path: 'platform', parent_id: 1 }, now);
  const tools = addGroup(sandbox.db, { name: 'Tools', path: 'tools', parent_id: platform.id }, now);
  addProject(sandbox.db, { name: 'deploy', path: 'deploy', namespace_id: platform.id, topics: ['ops'] }, now);
  addProject(sandbox.db, { name: 'lint', path: 'lint', namespace_id: tools.id, archived: true, visibility: 'internal' }, now);
});

const json = async <T = Array<Record<string, unknown>>>(argv: string[]): Promise<T> => {
  const result = await sandbox.run([...argv, '-o', 'json']);
  expect(result.code, result.stderr).toBe(0);
  return result.json<T>();
};
const paths = (records: Array<Record<string, unknown>>) => records.map((r) => (r.path_with_namespace ?? r.full_path) as string);

describe('projects list', () => {
  it('lists visible projects as TSV in a pipe with the default columns, and says when more exist', async () => {
    const result = await sandbox.run(['projects', 'list', '--per-page', '2', '--order-by', 'id', '--sort', 'asc']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0].split('\t')).toEqual(['1', 'acme/api', 'private', 'false', 'main', expect.any(String)]);
    expect(result.stderr).toMatch(/showing 2 of 4/);
    // Past the first page, the notice says which records these are.
    const second = await sandbox.run(['projects', 'list', '--per-page', '1', '--page', '2', '--order-by', 'id', '--sort', 'asc']);
    expect(second.stdout.split('\t')[0]).toBe('2');
    expect(second.stderr).toBe('showing record 2 of 4 — use --all or --limit\n');
  });

  it('sends the filters under the service\'s names', async () => {
    sandbox.clearRequests();
    await sandbox.run(['projects', 'list', '--search', 'de', '--search-namespaces', '--owned', '--membership', '--no-archived', '--visibility', 'private', '--topic', 'ops,infra', '--min-access-level', 'developer', '--order-by', 'name', '--sort', 'asc', '--statistics', '--simple']);
    const query = Object.fromEntries(new URL(sandbox.requests()[0].path, sandbox.rootUrl).searchParams);
    expect(query).toEqual({
      search: 'de', search_namespaces: 'true', owned: 'true', membership: 'true', archived: 'false', visibility: 'private', topic: 'ops,infra',
      min_access_level: '30', order_by: 'name', sort: 'asc', statistics: 'true', simple: 'true',
    });
  });

  it('lists a group\'s projects, with the whole subgroup tree on request, and a user\'s', async () => {
    expect(paths(await json(['projects', 'list', '--group', 'acme/platform']))).toEqual(['acme/platform/deploy']);
    expect(paths(await json(['projects', 'list', '--group', 'acme', '--include-subgroups', '--all'])).sort()).toEqual(['acme/api', 'acme/platform/deploy', 'acme/platform/tools/lint', 'acme/web']);
    expect(paths(await json(['projects', 'list', '--archived', '--all']))).toEqual(['acme/platform/tools/lint']);
    expect(paths(await json(['projects', 'list', '--topic', 'ops']))).toEqual(['acme/platform/deploy']);
    await sandbox.call('POST', '/projects', { name: 'scratch' });
    expect(paths(await json(['projects', 'list', '--user', 'root']))).toEqual(['root/scratch']);
  });

  it('pages --all newest first by id, the order of a single page, and as the caller sees them', async () => {
    sandbox.clearRequests();
    const all = await json(['projects', 'list', '--all', '--per-page', '2']);
    expect(all.map((p) => p.id)).toEqual([5, 4, 3, 2, 1]);
    expect((await json(['projects', 'list', '--per-page', '2'])).map((p) => p.id)).toEqual([5, 4]);
    expect(Object.fromEntries(new URL(sandbox.requests()[0].path, sandbox.rootUrl).searchParams)).toMatchObject({ order_by: 'id', sort: 'desc' });
    expect((await json(['projects', 'list', '--all', '--sort', 'asc'])).map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    const asBob = await sandbox.run(['projects', 'list', '--all', '-o', 'json'], { env: { FORGECTL_TOKEN: bob } });
    expect(paths(asBob.json())).toEqual(['acme/platform/tools/lint', 'acme/platform/deploy', 'acme/web', 'acme/api']);
  });

  it('refuses contradictory or bad input with exit 2 before sending anything', async () => {
    sandbox.clearRequests();
    for (const argv of [
      ['projects', 'list', '--include-subgroups'],
      ['projects', 'list', '--group', 'acme', '--user', 'bob'],
      ['projects', 'list', '--visibility', 'secret'],
      ['projects', 'list', '--min-access-level', 'boss'],
      ['projects', 'list', '--order-by', 'stars'],
      ['projects', 'list', '--search-namespaces'],
      ['projects', 'list', '--last-activity-after', 'yesterday'],
    ]) expect((await sandbox.run(argv)).code, argv.join(' ')).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('projects get', () => {
  it('shows a project by path or id, with permissions; without one and no default project it exits 2', async () => {
    const project = await json<Record<string, unknown>>(['projects', 'get', 'acme/api']);
    expect(project).toMatchObject({ id: 1, path_with_namespace: 'acme/api', permissions: { group_access: { access_level: 50 } } });
    expect((await json<Record<string, unknown>>(['projects', 'get', '2', '--statistics'])).statistics).toMatchObject({ commit_count: expect.any(Number) });
    const fields = await sandbox.run(['projects', 'get', 'acme/api', '--fields', 'id,default_branch']);
    expect(fields.stdout).toBe('id\t1\ndefault_branch\tmain\n');
    const bare = await sandbox.run(['projects', 'get']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe('error: no project given\nhint: pass the project as an argument (forgectl projects get ID|PATH), or set default_project in the profile\n');
    const group = await sandbox.run(['groups', 'get']);
    expect(group.stderr).toBe('error: no group given\nhint: pass the group as an argument (forgectl groups get ID|PATH), or set default_group in the profile\n');
    expect((await sandbox.run(['projects', 'get', 'acme/nope'])).code).toBe(5);
  });
});

describe('groups', () => {
  it('lists groups, subgroups and descendants; gets one with its sharing', async () => {
    expect(paths(await json(['groups', 'list', '--all']))).toEqual(['acme', 'acme/platform', 'acme/platform/tools']);
    expect(paths(await json(['groups', 'list', '--parent', 'acme']))).toEqual(['acme/platform']);
    expect(paths(await json(['groups', 'list', '--parent', 'acme', '--descendants']))).toEqual(['acme/platform', 'acme/platform/tools']);
    expect(paths(await json(['groups', 'list', '--top-level-only', '--owned']))).toEqual(['acme']);
    expect(paths(await json(['groups', 'list', '--search', 'tool']))).toEqual(['acme/platform/tools']);
    expect(paths(await json(['groups', 'list', '--skip-groups', '1', '--order-by', 'id', '--sort', 'desc']))).toEqual(['acme/platform/tools', 'acme/platform']);
    const group = await json<Record<string, unknown>>(['groups', 'get', 'acme/platform']);
    expect(group).toMatchObject({ full_path: 'acme/platform', full_name: 'Acme / Platform', shared_with_groups: [], projects: [] });
    expect((await json<Record<string, unknown>>(['groups', 'get', 'acme/platform', '--with-projects'])).projects).toHaveLength(1);
  });

  it('never prints a group\'s runner registration token unasked: groups get, create and update, api (but --show-values at a terminal)', async () => {
    const raw = await sandbox.call('GET', '/groups/acme');
    expect((raw.body as { runners_token?: string }).runners_token).toMatch(/^GR1348941/);
    const token = (raw.body as { runners_token: string }).runners_token;
    const runs = [
      await sandbox.run(['groups', 'get', 'acme', '-o', 'json']),
      await sandbox.run(['groups', 'get', 'acme']),
      await sandbox.run(['groups', 'update', 'acme', '--description', 'Acme', '-o', 'json']),
      await sandbox.run(['groups', 'create', '--name', 'Runners', '--path', 'runners-token', '-o', 'yaml']),
      await sandbox.run(['api', '/groups/acme']),
      await sandbox.run(['api', '/groups/acme', '--show-values']),
    ];
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(/GR1348941/);
    }
    expect(runs[0].json<Record<string, unknown>>()).toMatchObject({ full_path: 'acme', runners_token: null });
    // Asked for at a terminal, api shows it, as it shows masked variable values there.
    const shown = await sandbox.run(['api', '/groups/acme', '--show-values'], { tty: true });
    expect(shown.stdout).toContain(token);
  });

  it('refuses bad input with exit 2, an unknown group with exit 5', async () => {
    sandbox.clearRequests();
    for (const argv of [['groups', 'list', '--descendants'], ['groups', 'list', '--skip-groups', 'acme'], ['groups', 'list', '--parent', 'acme', '--top-level-only'], ['groups', 'get']]) {
      expect((await sandbox.run(argv)).code, argv.join(' ')).toBe(2);
    }
    expect(sandbox.requests()).toEqual([]);
    expect((await sandbox.run(['groups', 'get', 'nope'])).code).toBe(5);
    expect((await sandbox.run(['groups', 'list', '--parent', 'nope'])).code).toBe(5);
  });
});
