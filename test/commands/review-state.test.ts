import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';
import { tokens } from '../../src/sandbox/model.js';

/** `approvals state` and the merge-request-level approval rules (`approval-rules … --mr`), over HTTP. */
const sandbox = useTestSandbox();
const tokenOf = (name: string) => tokens(sandbox.db).find((t) => t.name === `${name}-token`)!.token;

describe('approvals state', () => {
  it('shows each rule of the merge request: required, approved by whom, approved', async () => {
    const before = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', '1']);
    expect(before.code).toBe(0);
    expect(before.stdout).toBe('Maintainers\tregular\t1\t\tfalse\tfalse\n');

    expect((await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1'], { env: { FORGECTL_TOKEN: tokenOf('alice') } })).code).toBe(0);
    const after = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', '1', '--no-color'], { tty: true });
    expect(after.code).toBe(0);
    const [header, row] = after.stdout.split('\n').filter((line) => /\w/.test(line));
    for (const column of ['name', 'rule_type', 'approvals_required', 'approved_by_names', 'approved', 'overridden']) expect(header).toContain(column);
    expect(row).toMatch(/Maintainers.*regular.*1.*alice.*true.*false/);

    const json = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', '1', '-o', 'json', '--fields', 'name,approved,approved_by']);
    expect(json.json()).toEqual([{ name: 'Maintainers', approved: true, approved_by: [expect.objectContaining({ username: 'alice' })] }]);
  });

  it('exits 5 for a merge request that does not exist and 2 for a bad IID', async () => {
    const missing = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', '999']);
    expect(missing.code).toBe(5);
    const bad = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', 'x']);
    expect(bad.code).toBe(2);
  });
});

describe('approval-rules --mr', () => {
  it('lists the copies of the project rules, then creates, updates and deletes rules of the merge request (asking first)', async () => {
    const list = await sandbox.run(['approval-rules', 'list', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(list.code).toBe(0);
    expect(list.json().map((r: { name: string }) => r.name)).toEqual(['Maintainers']);

    const created = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--mr', '1', '--name', 'Security', '--approvals-required', '2', '--users', 'alice,bob', '-o', 'json']);
    expect(created.code).toBe(0);
    const rule = created.json();
    expect(rule).toMatchObject({ name: 'Security', approvals_required: 2 });
    expect(rule.users.map((u: { username: string }) => u.username).sort()).toEqual(['alice', 'bob']);

    const updated = await sandbox.run(['approval-rules', 'update', String(rule.id), '--project', 'acme/api', '--mr', '1', '--approvals-required', '1', '-o', 'json']);
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({ name: 'Security', approvals_required: 1 });

    const state = await sandbox.run(['approvals', 'state', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(state.stderr).toContain('has its own approval rules');
    expect(state.json().map((r: { name: string }) => r.name)).toEqual(['Maintainers', 'Security']);

    // The project's own rules are untouched.
    const project = await sandbox.run(['approval-rules', 'list', '--project', 'acme/api', '-o', 'json']);
    expect(project.json().map((r: { name: string }) => r.name)).toEqual(['Maintainers']);

    sandbox.clearRequests();
    const unasked = await sandbox.run(['approval-rules', 'delete', String(rule.id), '--project', 'acme/api', '--mr', '1']);
    expect(unasked.code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const deleted = await sandbox.run(['approval-rules', 'delete', String(rule.id), '--project', 'acme/api', '--mr', '1', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain(`Deleted approval rule ${rule.id} (Security) of merge request !1 in acme/api`);
    expect((await sandbox.run(['approval-rules', 'get', String(rule.id), '--project', 'acme/api', '--mr', '1'])).code).toBe(5);
  });

  it('copies a project rule with --from-rule', async () => {
    const projectRule = (await sandbox.run(['approval-rules', 'list', '--project', 'acme/api', '-o', 'json'])).json()[0];
    const copied = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--mr', '1', '--name', 'Copy', '--approvals-required', '3', '--from-rule', String(projectRule.id), '-o', 'json']);
    expect(copied.code).toBe(0);
    expect(copied.json()).toMatchObject({ name: 'Copy', approvals_required: 3, users: [{ username: 'alice' }] });
  });

  it('refuses options of project rules on a merge request rule, and --from-rule without --mr, before sending anything', async () => {
    sandbox.clearRequests();
    for (const argv of [
      ['--mr', '1', '--rule-type', 'any_approver'],
      ['--mr', '1', '--protected-branches', '1'],
      ['--from-rule', '1'],
      ['--mr', '0'],
    ]) {
      const result = await sandbox.run(['approval-rules', 'create', '--project', 'acme/api', '--name', 'X', '--approvals-required', '1', ...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('the agent interface', () => {
  it('lists approvals state and the approval-rules reads in the review toolset, audit events in access, all read-only', async () => {
    const review = await sandbox.run(['mcp', 'tools']);
    expect(review.stdout).toMatch(/^approvals_state\treview\tread\t/m);
    expect(review.stdout).toMatch(/^approval_rules_list\treview\tread\t/m);
    const all = await sandbox.run(['mcp', 'tools', '--toolsets', 'all']);
    expect(all.stdout).toMatch(/^audit_events_list\taccess\tread\t/m);
  });
});
