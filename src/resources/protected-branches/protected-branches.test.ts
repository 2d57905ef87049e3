import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../errors.js';
import { startTestSandbox, tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

type Entry = { id: number; access_level: number; user_id?: number | null; group_id?: number | null };
type Rule = { name: string; push_access_levels: Entry[]; merge_access_levels: Entry[]; unprotect_access_levels: Entry[]; allow_force_push: boolean; inherited?: boolean };

const userId = (name: string): number => sandbox.db.table<{ id: number; username: string }>('users').find((u) => u.username === name)!.id;
const rule = async (name: string, where = 'projects/acme%2Fapi'): Promise<Rule> => (await sandbox.call('GET', `/${where}/protected_branches/${encodeURIComponent(name)}`)).body;
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');

describe('protected-branches', () => {
  it('lists the default branch, protected with the project, and the seeded wildcard, with who may push and merge in words', async () => {
    const table = await sandbox.run(['protected-branches', 'list', '--project', 'acme/api']);
    expect(table.code).toBe(0);
    // name, inherited, push, merge, unprotect, allow_force_push: who, as the options take it.
    expect(table.stdout).toMatch(/^main\tfalse\tmaintainer\tmaintainer\tmaintainer\tfalse$/m);
    expect(table.stdout).toMatch(/^release\/\*\tfalse\tmaintainer\tdeveloper\tmaintainer\tfalse$/m);
    // A project created through the API with a README gets its default branch protected too; an empty one at its first push.
    const created = await sandbox.call('POST', '/projects', { name: 'fresh', namespace_id: 1, initialize_with_readme: true });
    expect(created.status).toBe(201);
    const fresh = await sandbox.run(['protected-branches', 'list', '--project', created.body.path_with_namespace, '-o', 'json']);
    expect(fresh.json()).toMatchObject([{ name: 'main', push_access_levels: [{ access_level: 40 }], merge_access_levels: [{ access_level: 40 }] }]);
    const empty = await sandbox.call('POST', '/projects', { name: 'empty', namespace_id: 1 });
    expect((await sandbox.run(['protected-branches', 'list', '--project', empty.body.path_with_namespace, '-o', 'json'])).json()).toEqual([]);
    const path = encodeURIComponent(empty.body.path_with_namespace);
    expect((await sandbox.call('POST', `/projects/${path}/repository/files/README.md`, { branch: 'main', content: '# empty', commit_message: 'first' })).status).toBe(201);
    expect((await sandbox.call('POST', `/projects/${path}/repository/files/b.md`, { branch: 'other', start_branch: 'main', content: 'b', commit_message: 'b' })).status).toBe(201);
    expect((await sandbox.run(['protected-branches', 'list', '--project', empty.body.path_with_namespace, '-o', 'json'])).json().map((r: Rule) => r.name)).toEqual(['main']);
  });

  it('protects a wildcard with roles by name and users and groups by name, resolved to IDs', async () => {
    const devs = await sandbox.call('POST', '/groups', { name: 'devs', path: 'devs' });
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/share', { group_id: devs.body.id, group_access: 30 })).status).toBe(201);
    const result = await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'feature/*', '--push-access-level', 'developer', '--merge-access-level', 'maintainer',
      '--allow-push', 'user:alice,user:bob', '--allow-merge', 'group:devs', '--allow-force-push', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      name: 'feature/*',
      allow_force_push: true,
      push_access_levels: [{ access_level: 30 }, { user_id: userId('alice') }, { user_id: userId('bob') }],
      merge_access_levels: [{ access_level: 40 }, { group_id: devs.body.id }],
      unprotect_access_levels: [],
    });
    const again = await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'feature/*']);
    expect(again.code).toBe(ExitCode.rejected);
    expect(again.stderr).toContain('error: branch feature/* of project acme/api is already protected, differently (push: developer, user:alice, user:bob there, maintainer asked;');
  });

  it('updates only what is given: a level replaces the role entry, users are added and removed by entry id, the rest stays', async () => {
    await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'hotfix', '--allow-push', 'user:alice,maintainer', '--allow-merge', 'user:bob']);
    const before = await rule('hotfix');
    const result = await sandbox.run(['protected-branches', 'update', 'hotfix', '--project', 'acme/api', '--push-access-level', 'no-access', '--disallow-merge', 'user:bob', '--allow-merge', 'developer', '-o', 'json']);
    expect(result.code).toBe(0);
    const after = await rule('hotfix');
    const alice = before.push_access_levels.find((e) => e.user_id === userId('alice'))!;
    expect(after.push_access_levels).toEqual(expect.arrayContaining([expect.objectContaining({ id: alice.id, user_id: userId('alice') }), expect.objectContaining({ access_level: 0 })]));
    expect(after.push_access_levels.some((e) => e.access_level === 40 && !e.user_id)).toBe(false);
    expect(after.merge_access_levels).toMatchObject([{ access_level: 30 }]);
    expect(after.allow_force_push).toBe(false);
    // Nothing left to change: nothing sent.
    sandbox.clearRequests();
    const same = await sandbox.run(['protected-branches', 'update', 'hotfix', '--project', 'acme/api', '--push-access-level', 'no-access']);
    expect(same.code).toBe(0);
    expect(same.stderr).toContain('nothing sent');
    expect(writes()).toEqual([]);
  });

  it('protecting again as asked succeeds (a re-run of a bulk run); protected differently says what differs and how to change it', async () => {
    const args = ['protected-branches', 'protect', '--project', 'acme/api', '--name', 'rc/*', '--push-access-level', 'maintainer', '--merge-access-level', 'developer', '--allow-push', 'user:alice'];
    expect((await sandbox.run(args)).code).toBe(0);
    sandbox.clearRequests();
    const again = await sandbox.run([...args, '-o', 'json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('branch rc/* of project acme/api is already protected as asked\n');
    expect(again.json()).toMatchObject({ name: 'rc/*', merge: 'developer' });
    // The seeded main: Maintainers push, merge and unprotect, no force push.
    expect((await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'main'])).code).toBe(0);
    const other = await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'main', '--push-access-level', 'no-access', '--allow-force-push']);
    expect(other.code).toBe(6);
    expect(other.stderr).toContain("error: branch main of project acme/api is already protected, differently (push: maintainer there, no-access asked; force push: off there, on asked)");
    expect(other.stderr).toContain('hint: change it with forgectl protected-branches update main (a level replaces the role');
    expect(writes().filter((r) => r.method !== 'POST')).toEqual([]);
    expect((await rule('main')).push_access_levels).toMatchObject([{ access_level: 40 }]);
  });

  it('refuses bad input and unknown users before anything is sent', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'x', '--allow-push', 'team:4'])).code).toBe(ExitCode.usage);
    expect((await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'x', '--unprotect-access-level', 'no-access'])).code).toBe(ExitCode.usage);
    const unknown = await sandbox.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'x', '--allow-push', 'user:nobody,user:alice']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toContain('unknown user: nobody');
    expect((await sandbox.run(['protected-branches', 'update', 'main', '--project', 'acme/api'])).code).toBe(ExitCode.usage);
    expect((await sandbox.run(['protected-branches', 'list'])).stderr).toContain('which protected branches? give --project or --group');
    expect(writes()).toEqual([]);
  });

  it('enforces wildcard rules on pushes and deletes of matching branches', async () => {
    const developer = sandbox.tokenWithRole('developer');
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch: 'release/9.9', ref: 'main' })).status).toBe(201);
    const branch = await sandbox.call('GET', '/projects/acme%2Fapi/repository/branches/release%2F9.9', undefined, developer);
    expect(branch.body).toMatchObject({ protected: true, developers_can_merge: true, developers_can_push: false, can_push: false });
    const push = await sandbox.call('POST', '/projects/acme%2Fapi/repository/files/NOTES.md', { branch: 'release/9.9', content: 'x', commit_message: 'notes' }, developer);
    expect(push.status).toBe(403);
    expect((await sandbox.call('DELETE', '/projects/acme%2Fapi/repository/branches/release%2F9.9', undefined, developer)).status).toBe(400);
    // Unprotected, the branch is the developers' again.
    expect((await sandbox.run(['protected-branches', 'unprotect', 'release/*', '--project', 'acme/api'])).code).toBe(ExitCode.usage);
    expect((await rule('release/*')).name).toBe('release/*'); // asked first, nothing removed
    expect((await sandbox.run(['protected-branches', 'unprotect', 'release/*', '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/repository/files/NOTES.md', { branch: 'release/9.9', content: 'x', commit_message: 'notes' }, developer)).status).toBe(201);
    expect((await sandbox.run(['protected-branches', 'get', 'release/*', '--project', 'acme/api'])).code).toBe(ExitCode.notFound);
    // Gone, a second unprotect says where to look.
    const again = await sandbox.run(['protected-branches', 'unprotect', 'release/*', '--project', 'acme/api', '--yes']);
    expect([again.code, again.stderr.split('\n')[1]]).toEqual([ExitCode.notFound, 'hint: forgectl protected-branches list --project acme/api lists its protected branches']);
  });

  it('protects a branch for every project of a group, shown in their lists as inherited', async () => {
    const result = await sandbox.run(['protected-branches', 'protect', '--group', 'acme', '--name', 'stable-*', '--push-access-level', 'maintainer', '-o', 'json']);
    expect(result.code).toBe(0);
    const list = await sandbox.run(['protected-branches', 'list', '--project', 'acme/web', '-o', 'json']);
    expect(list.json()).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'stable-*', inherited: true })]));
    expect((await sandbox.run(['protected-branches', 'get', 'stable-*', '--group', 'acme', '-o', 'json'])).json().name).toBe('stable-*');
    expect((await sandbox.run(['protected-branches', 'unprotect', 'stable-*', '--group', 'acme', '--yes'])).code).toBe(0);
  });

  it('tells a project\'s rule from its group\'s, and says who may push, merge and unprotect as the options take it', async () => {
    expect((await sandbox.call('POST', '/groups/acme/protected_branches', { name: 'main', allowed_to_merge: [{ user_id: userId('alice') }] })).status).toBe(201);
    const rows = (await sandbox.run(['protected-branches', 'list', '--project', 'acme/web'])).stdout.split('\n').filter((line) => line.startsWith('main\t'));
    expect(rows).toEqual(['main\tfalse\tmaintainer\tmaintainer\tmaintainer\tfalse', 'main\ttrue\tmaintainer\tuser:alice\tmaintainer\tfalse']);
    // get fills the words as list does, for --fields too.
    const got = await sandbox.run(['protected-branches', 'get', 'main', '--group', 'acme', '--fields', 'name,push,merge', '-o', 'json']);
    expect(got.json()).toEqual({ name: 'main', push: 'maintainer', merge: 'user:alice' });
    // At 80 columns a rule is read as words, without the entry lists as wrapped JSON (-o json keeps them).
    const terminal = await sandbox.run(['protected-branches', 'update', 'main', '--group', 'acme', '--allow-push', 'user:bob'], { tty: true, columns: 80 });
    expect(terminal.code, terminal.stderr).toBe(0);
    // eslint-disable-next-line no-control-regex
    const shown = terminal.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    expect(shown).toMatch(/^push +maintainer, user:bob$/m);
    expect(terminal.stdout).not.toContain('access_level_description');
    expect(Math.max(...shown.split('\n').map((line) => [...line].length))).toBeLessThanOrEqual(80);
    expect((await sandbox.run(['protected-branches', 'get', 'main', '--group', 'acme', '-o', 'json'])).json().push_access_levels).toHaveLength(2);
    expect((await sandbox.run(['protected-branches', 'unprotect', 'main', '--group', 'acme', '--yes'])).code).toBe(0);
  });

  it('protect over --projects-file shows who may push and merge in each project\'s row', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'two.txt'), 'acme/api\nacme/web\n');
    const rows = await sandbox.run(['protected-branches', 'protect', '--projects-file', join(dir, 'two.txt'), '--name', 'ops/*', '--merge-access-level', 'developer', '--allow-push', 'user:alice,maintainer']);
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.stdout).toBe('acme/api\tok\tops/*\tmaintainer, user:alice\tdeveloper\tmaintainer\tfalse\t\nacme/web\tok\tops/*\tmaintainer, user:alice\tdeveloper\tmaintainer\tfalse\t\n');
  });
});

describe('sandbox: protected branches on the free tier', () => {
  it('refuses group rules before looking for the group, and answers project rules without inherited or code owners', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${free.url}${path}`, { method, headers: { 'PRIVATE-TOKEN': free.adminToken, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
        .then(async (r) => ({ status: r.status, body: await r.json() }));
    try {
      expect(await call('GET', '/groups/acme/protected_branches')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
      expect(await call('GET', '/groups/no-such-group/protected_branches')).toEqual({ status: 403, body: { message: '403 Forbidden' } });
      const created = await call('POST', '/projects/acme%2Fapi/protected_branches', { name: 'hotfix/*', code_owner_approval_required: true });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('inherited');
      expect(created.body.code_owner_approval_required).toBe(false);
    } finally {
      await free.close();
    }
  });
});

describe('protect on an edition that drops who is named (free)', () => {
  it('says the users and the code owner approval the instance left out, exit 9, instead of success', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const result = await free.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'hotfix', '--push-access-level', 'no-access', '--allow-push', 'user:alice,user:bob', '--code-owner-approval']);
      expect(result.code).toBe(ExitCode.attention);
      expect(result.stdout).toContain('hotfix');
      expect(result.stderr).toContain('the instance left out --allow-push user:alice,user:bob and --code-owner-approval');
      const roleOnly = await free.run(['protected-branches', 'protect', '--project', 'acme/api', '--name', 'stable/*', '--merge-access-level', 'developer']);
      expect(roleOnly.code, roleOnly.stderr).toBe(0);
      const update = await free.run(['protected-branches', 'update', 'release/*', '--project', 'acme/api', '--push-access-level', 'no-access', '--allow-merge', 'user:alice', '--allow-force-push']);
      expect(update.code).toBe(ExitCode.attention);
      expect(update.stderr).toContain('the instance left out --push-access-level no-access and --allow-merge user:alice');
      const forcePush = await free.run(['protected-branches', 'update', 'release/*', '--project', 'acme/api', '--no-allow-force-push']);
      expect(forcePush.code, forcePush.stderr).toBe(0);
    } finally {
      await free.close();
    }
  });
});
