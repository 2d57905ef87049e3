import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox({ users: 1 });

describe('approval-rules', () => {
  it('lists the seeded rule', async () => {
    const list = await sandbox.run(['approval-rules', 'list', '--project', 'acme/api']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\d+\tMaintainers\tregular\t\t1\tfalse\n$/);
  });

  it('creates a rule with users by name and id, groups by path and protected branches', async () => {
    const created = await sandbox.run([
      'approval-rules', 'create', '--project', 'acme/api', '--name', 'Security', '--approvals-required', '2',
      '--users', 'alice,3', '--groups', 'acme', '--protected-branches', '1', '-o', 'json',
    ]);
    expect(created.code).toBe(0);
    const rule = created.json();
    expect(rule).toMatchObject({ name: 'Security', rule_type: 'regular', approvals_required: 2, protected_branches: [{ id: 1, name: 'main' }], groups: [{ full_path: 'acme' }] });
    expect(rule.users.map((u: { username: string }) => u.username).sort()).toEqual(['alice', 'bob']);
    expect(rule.eligible_approvers.map((u: { username: string }) => u.username)).toEqual(expect.arrayContaining(['root', 'alice', 'bob']));

    const updated = await sandbox.run(['approval-rules', 'update', String(rule.id), '--project', 'acme/api', '--users', 'alice', '--all-protected-branches', '-o', 'json']);
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ name: 'Security', approvals_required: 2, applies_to_all_protected_branches: true, users: [{ username: 'alice' }] });

    const duplicate = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'Security', '--approvals-required', '1']);
    expect(duplicate.code).toBe(6);
    expect(duplicate.stderr).toContain('name has already been taken');

    sandbox.clearRequests();
    expect((await sandbox.run(['approval-rules', 'delete', String(rule.id), '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await sandbox.run(['approval-rules', 'delete', String(rule.id), '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['approval-rules', 'get', String(rule.id), '--project', 'acme/api'])).code).toBe(5);
  });

  it('refuses unknown users (names or IDs) before creating anything, and warns about users the service left out', async () => {
    sandbox.clearRequests();
    for (const users of ['alice,nosuchuser', '9999']) {
      const result = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', `Ghost ${users}`, '--approvals-required', '1', '--users', users]);
      expect(result.code, users).toBe(2);
      expect(result.stderr).toContain(`unknown user: ${users.replace('alice,', '')}`);
    }
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    const outsider = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'Outsider', '--approvals-required', '1', '--users', 'alice,user1', '-o', 'json']);
    expect(outsider.code).toBe(0);
    expect(outsider.json().users.map((u: { username: string }) => u.username)).toEqual(['alice']);
    expect(outsider.stderr).toMatch(/warning: the service left user1 out of the rule \(not a member of the project\?\)/);
    await sandbox.run(['approval-rules', 'delete', String(outsider.json().id), '--project', 'acme/api', '--yes']);
  });

  it('creates a report approver rule', async () => {
    const created = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'Coverage', '--approvals-required', '1', '--rule-type', 'report_approver', '--report-type', 'code_coverage', '-o', 'json']);
    expect(created.json()).toMatchObject({ rule_type: 'report_approver', report_type: 'code_coverage' });
  });

  it('checks names, numbers and types before sending', async () => {
    sandbox.clearRequests();
    const long = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'x'.repeat(1025), '--approvals-required', '1']);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('at most 1024');
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'x', '--approvals-required', '-1'])).code).toBe(2);
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'x', '--approvals-required', '1', '--rule-type', 'magic'])).code).toBe(2);
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'x', '--approvals-required', '1', '--rule-type', 'report_approver'])).code).toBe(2);
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'x'])).code).toBe(2);
    expect((await sandbox.run(['approval-rules', 'update', '1', '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    // The exact limit is accepted.
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'y'.repeat(1024), '--approvals-required', '0'])).code).toBe(0);
  });

  it('needs the Maintainer role to create', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'z', '--approvals-required', '1'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(4);
    expect((await sandbox.run(['approval-rules', 'list', '--project', 'acme/api'], { env: { FORGECTL_TOKEN: bob } })).code).toBe(0);
  });
});
