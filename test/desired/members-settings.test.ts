import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, tempFile, useTestSandbox } from '../helpers/cli.js';
import { membersSection } from '../../src/resources/members/desired.js';
import type { Change } from '../../src/desired/model.js';

// Three fleet projects (acme/team-01/squad-1): a team subgroup with a member above each project's own.
const sandbox = useTestSandbox({ fleet: 3 });
const dir = tempDir();

const file = (name: string, text: string): string => tempFile(text, name, dir);

const memberLevel = async (where: string[], username: string): Promise<number | undefined> => {
  const result = await sandbox.run(['members', 'list', ...where, '-o', 'json']);
  return (result.json() as Array<{ username: string; access_level: number }>).find((m) => m.username === username)?.access_level;
};

describe('desired members and settings', () => {
  it('export plans no changes; a member and a setting changed by hand are drift by name; apply; plan 0 again', async () => {
    const exported = await sandbox.run(['export', '--group', 'acme', '--recursive']);
    expect(exported.code).toBe(0);
    // Bots and service accounts are left out of the export; people are there, by role name.
    expect(exported.stdout).toMatch(/members:\n {6}users:\n {8}root: owner\n {8}alice: maintainer\n {8}bob: developer\n {8}priya: guest\n/);
    expect(exported.stdout).not.toContain('service_account_deploy');
    // The fleet seed: priya a Maintainer of the team subgroup, omar a Developer of each project below it.
    expect(exported.stdout).toMatch(/acme\/team-01:\n(?: {4}.*\n)*? {4}members:\n {6}users:\n {8}priya: maintainer\n/);
    expect(exported.stdout).toMatch(/acme\/team-01\/squad-1\/svc-002:\n(?: {4}.*\n)*? {4}members:\n {6}users:\n {8}omar: developer\n/);
    expect(exported.stdout).toMatch(/settings:\n {6}description: The api of Acme\n {6}visibility: private\n {6}default_branch: main\n/);
    const desired = file('acme.yaml', exported.stdout);
    expect((await sandbox.run(['validate', '-f', desired])).code).toBe(0);
    const clean = await sandbox.run(['plan', '-f', desired]);
    expect(clean.stdout).toBe('No changes: the file matches 5 projects and 3 groups.\n');

    expect((await sandbox.run(['members', 'update', 'bob', '--group', 'acme', '--access-level', 'reporter'])).code).toBe(0);
    expect((await sandbox.run(['members', 'add', 'priya', '--project', 'acme/web', '--access-level', 'developer'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'update', 'acme/web', '--merge-method', 'ff'])).code).toBe(0);
    expect((await sandbox.run(['groups', 'update', 'acme', '--project-creation-level', 'owner'])).code).toBe(0);
    const drift = await sandbox.run(['plan', '-f', desired]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain('group acme\n  ~ group settings\n      project_creation_level: "owner" → "developer"\n  ~ member bob\n      access_level: "reporter" → "developer"\n');
    expect(drift.stdout).toContain('project acme/web\n  ~ project settings\n      merge_method: "ff" → "merge"\n');
    // priya was added by hand to acme/web; without enforce, members the file does not list stay.
    expect(drift.stdout).not.toContain('member priya');

    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(0);
    expect(await memberLevel(['--group', 'acme'], 'bob')).toBe(30);
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
    expect((await sandbox.run(['members', 'remove', 'priya', '--project', 'acme/web', '--yes'])).code).toBe(0);
  });

  it('enforce removes the members the file does not list, naming each in the plan first; bots and service accounts stay unless keep_bots: false', async () => {
    const base = `version: 1
groups:
  acme:
    members:
      enforce: true
      users: {root: owner, alice: maintainer, bob: developer}
`;
    // keep_bots: false removes the bots too, each line saying what goes with it: a token's bot takes its token along.
    const strict = await sandbox.run(['plan', '-f', file('strict.yaml', base.replace('enforce: true', 'enforce: true\n      keep_bots: false'))]);
    expect(strict.code).toBe(9);
    expect(strict.stdout).toMatch(/ {2}- member priya\n {6}access_level: "guest"\n/);
    expect(strict.stdout).toMatch(/ {2}- member group_\d+_bot_\w+: the bot user of a group access token: removing it revokes the token\n/);
    expect(strict.stdout).toContain('  - member service_account_deploy: a bot user or service account: its tokens lose this access\n');
    // A saved plan's removal of a bot follows only from a file that says keep_bots: false (an edited plan is refused).
    const removal = { owner: { level: 'group', path: 'acme' }, section: 'members', key: 'group_1_bot_ab12', action: 'delete', fields: [], desired: { kind: 'user', name: 'group_1_bot_ab12', bot: true }, digest: '' } as Change;
    expect(membersSection.follows!({ enforce: true, users: {} }, removal)).toBe('it removes a bot user, and the file keeps them (keep_bots)');
    expect(membersSection.follows!({ enforce: true, keep_bots: false, users: {} }, removal)).toBeUndefined();

    // By default (an exported file lists no bots) they are kept: only the people the file does not list go.
    const keep = file('keep.yaml', base);
    const plan = await sandbox.run(['plan', '-f', keep]);
    expect(plan.stdout).toBe('group acme\n  - member priya\n      access_level: "guest"\n\nPlan: 1 to delete in 1 of 1 group.\n');
    sandbox.clearRequests();
    expect((await sandbox.run(['apply', '-f', keep, '--yes'])).code).toBe(0);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([expect.stringMatching(/^\/api\/v4\/groups\/acme\/members\/\d+\?skip_subresources=true$/)]);
    expect(await memberLevel(['--group', 'acme'], 'priya')).toBeUndefined();
    // Only what the plan named: priya's memberships below acme (which the service would remove with it) stay.
    expect(await memberLevel(['--project', 'acme/api'], 'priya')).toBe(40);
    expect(await memberLevel(['--group', 'acme/team-01'], 'priya')).toBe(40);
    expect(await memberLevel(['--group', 'acme'], 'service_account_deploy')).toBe(20);
    expect((await sandbox.run(['plan', '-f', keep])).code).toBe(0);
  });

  it('never removes the caller, nor leaves a top-level group without an owner: findings, exit 9, nothing done', async () => {
    const noCaller = file('no-caller.yaml', `version: 1
groups:
  acme:
    members:
      enforce: true
      keep_bots: true
      users: {alice: owner, bob: developer}
`);
    const plan = await sandbox.run(['plan', '-f', noCaller]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  ! member root: is you: forgectl never removes the caller; list root under users (or leave enforce off)');
    const applied = await sandbox.run(['apply', '-f', noCaller, '--yes']);
    expect(applied.code).toBe(9);
    expect(await memberLevel(['--group', 'acme'], 'root')).toBe(50);
    expect(await memberLevel(['--group', 'acme'], 'alice')).toBe(50);
    expect((await sandbox.run(['members', 'update', 'alice', '--group', 'acme', '--access-level', 'maintainer'])).code).toBe(0);

    const demote = await sandbox.run(['plan', '-f', file('demote.yaml', `version: 1
groups:
  acme:
    members:
      users: {root: maintainer}
`)]);
    expect(demote.code).toBe(9);
    expect(demote.stdout).toContain('  ! member root: is the last owner: the group must keep one; list an owner under users');
  });

  it("never lowers the caller's own role (it would lock out the token that runs it); another member's goes through", async () => {
    const env = { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') };
    const project = 'acme/team-01/squad-1/svc-001';
    const desired = file('self-demote.yaml', `version: 1
projects:
  ${project}:
    members:
      users: {maintainer-of-acme: developer, omar: reporter}
`);
    expect((await sandbox.run(['members', 'add', 'maintainer-of-acme', '--project', project, '--access-level', 'maintainer'])).code).toBe(0);
    const plan = await sandbox.run(['plan', '-f', desired], { env });
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain(`  ! member maintainer-of-acme: is you: forgectl never lowers the caller's own role (maintainer); change it by hand, or with another token\n`);
    expect(plan.stdout).toMatch(/ {2}~ member omar.*\n {6}access_level: "developer" → "reporter"\n/);
    const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env });
    expect(applied.code).toBe(9);
    expect(await memberLevel(['--project', project], 'maintainer-of-acme')).toBe(40);
    expect(await memberLevel(['--project', project], 'omar')).toBe(20);
  });

  it('adds users and shared groups with expiry, and replaces a share whose level changed', async () => {
    const desired = file('share.yaml', `version: 1
projects:
  acme/web:
    members:
      users:
        omar: {access_level: reporter, expires_at: 2031-05-01}
        priya: developer
      groups:
        acme/team-01: {access_level: reporter, expires_at: 2031-06-01}
`);
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.stdout).toContain('  ~ member omar\n      expires_at: ');
    expect(plan.stdout).toContain('  + member priya\n      access_level: "developer"\n  + member group acme/team-01\n      access_level: "reporter"\n      expires_at: "2031-06-01"\n');
    expect((await sandbox.run(['apply', '-f', desired, '--yes'])).code).toBe(0);
    const project = (await sandbox.run(['projects', 'get', 'acme/web', '-o', 'json'])).json() as { shared_with_groups: Array<{ group_full_path: string; group_access_level: number }> };
    expect(project.shared_with_groups).toMatchObject([{ group_full_path: 'acme/team-01', group_access_level: 20 }]);
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
    const raised = file('share2.yaml', readText(desired).replace('acme/team-01: {access_level: reporter', 'acme/team-01: {access_level: developer'));
    const replan = await sandbox.run(['plan', '-f', raised]);
    expect(replan.stdout).toContain('  -/+ member group acme/team-01');
    expect((await sandbox.run(['apply', '-f', raised, '--yes'])).code).toBe(0);
    expect((await sandbox.run(['plan', '-f', raised])).code).toBe(0);
  });

  it('a saved plan is refused when a member it changes moved since', async () => {
    const desired = file('saved.yaml', 'version: 1\ngroups:\n  acme:\n    members:\n      users: {bob: maintainer}\n');
    const out = join(dir, 'plan.json');
    expect((await sandbox.run(['plan', '-f', desired, '--out', out])).code).toBe(9);
    expect((await sandbox.run(['members', 'update', 'bob', '--group', 'acme', '--access-level', 'guest'])).code).toBe(0);
    const stale = await sandbox.run(['apply', '-f', out, '--yes']);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain('group acme: member bob');
    expect((await sandbox.run(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect(await memberLevel(['--group', 'acme'], 'bob')).toBe(40);
  });

  it('checks roles, dates and users: the file before anything is sent, unknown users before any change', async () => {
    const bad = await sandbox.run(['validate', '-f', file('bad.yaml', 'version: 1\ngroups:\n  acme:\n    members:\n      users: {bob: boss}\n    settings: {visibility: secret}\n')]);
    expect(bad.code).toBe(2);
    expect(bad.stdout + bad.stderr).toMatch(/bad\.yaml:5:\d+: .*users/);
    expect(bad.stdout + bad.stderr).toMatch(/bad\.yaml:6:\d+: .*visibility/);
    const unknown = await sandbox.run(['plan', '-f', file('unknown.yaml', 'version: 1\ngroups:\n  acme:\n    members:\n      users: {nobody-at-all: developer}\n')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown user: nobody-at-all');
  });
});

function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
