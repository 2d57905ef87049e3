import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { mergeRequests, tokens } from '../../sandbox/model.js';
import { addToken, addUser } from '../../sandbox/seed.js';
import { members } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const token = (name: string) => tokens(sandbox.db).find((t) => t.name === name)!.token;
const mr1 = () => mergeRequests(sandbox.db).find((m) => m.project_id === 1 && m.iid === 1)!;

describe('approvals', () => {
  it('refuses a SHA that is not HEAD with exit 6 and the reason, then approves without --sha', async () => {
    const stale = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--sha', '0000000000000000000000000000000000000000']);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toContain(`SHA does not match HEAD of source branch: ${mr1().sha}`);
    expect(stale.stderr).toContain('→ 409');

    const approved = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '-o', 'json']);
    expect(approved.code).toBe(0);
    expect(approved.json()).toMatchObject({ iid: 1, approved: true, approvals_left: 0, approved_by: [{ user: { username: 'root' } }] });

    const shown = await sandbox.run(['approvals', 'show', '--project', 'acme/api', '--mr', '1', '--fields', 'approvals_left,user_has_approved']);
    expect(shown.stdout).toBe('approvals_left\t0\nuser_has_approved\ttrue\n');

    const again = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('you have already approved');

    expect((await sandbox.run(['approvals', 'unapprove', '--project', 'acme/api', '--mr', '1'])).code).toBe(0);
    const notApproved = await sandbox.run(['approvals', 'unapprove', '--project', 'acme/api', '--mr', '1']);
    expect(notApproved.code).toBe(5);
    expect(notApproved.stderr).toContain('you have not approved merge request !1');
  });

  it('approves at the current HEAD SHA and checks the SHA format locally', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--sha', 'abc123'])).code).toBe(2);
    expect((await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', 'x'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const alice = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--sha', mr1().sha, '-o', 'json'], { env: { FORGECTL_TOKEN: token('alice-token') } });
    expect(alice.code).toBe(0);
    expect(alice.json().approved_by.map((a: { user: { username: string } }) => a.user.username)).toContain('alice');
    await sandbox.run(['approvals', 'unapprove', '--project', 'acme/api', '--mr', '1'], { env: { FORGECTL_TOKEN: token('alice-token') } });
  });

  it('explains why the author may not approve', async () => {
    const bob = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1'], { env: { FORGECTL_TOKEN: token('bob-token') } });
    expect(bob.code).toBe(4);
    expect(bob.stderr).toContain('you are not allowed to approve');
  });

  it('reads the password from stdin when re-authentication is required, and never shows it', async () => {
    expect((await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--require-reauthentication-to-approve'])).code).toBe(0);
    try {
      const without = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1']);
      expect(without.code).toBe(4);
      expect(without.stderr).toContain('--password-stdin');

      const wrong = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--password-stdin'], { input: 'nope\n' });
      expect(wrong.code).toBe(4);
      expect(wrong.stderr).toContain('password was not accepted');

      const empty = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--password-stdin'], { input: '\n' });
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('error: no password: stdin is empty');

      const dry = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--password-stdin', '--dry-run', '-v'], { input: 'sandbox-password\n' });
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain('"approval_password": "[REDACTED]"');
      expect(dry.stdout + dry.stderr).not.toContain('sandbox-password');

      const right = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1', '--password-stdin', '-o', 'json'], { input: 'sandbox-password\n' });
      expect(right.code).toBe(0);
      expect(right.json().approved).toBe(true);
      expect(right.stdout + right.stderr).not.toContain('sandbox-password');
    } finally {
      await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--no-require-reauthentication-to-approve']);
      await sandbox.run(['approvals', 'unapprove', '--project', 'acme/api', '--mr', '1']);
    }
  });

  it('resets approvals only as a bot user, asking first', async () => {
    await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1']);
    sandbox.clearRequests();
    expect((await sandbox.run(['approvals', 'reset', '--project', 'acme/api', '--mr', '1'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);

    const human = await sandbox.run(['approvals', 'reset', '--project', 'acme/api', '--mr', '1', '--yes']);
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('only bot users');
    expect(mr1().approved_by).toHaveLength(1);

    const now = new Date();
    const bot = addUser(sandbox.db, { username: 'project_1_bot_test', bot: true }, now);
    members(sandbox.db).push({ source_type: 'project', source_id: 1, user_id: bot.id, access_level: 40 });
    const botToken = addToken(sandbox.db, bot, { kind: 'project', resource_id: 1, name: 'review-bot' }, now);
    const reset = await sandbox.run(['approvals', 'reset', '--project', 'acme/api', '--mr', '1', '--yes'], { env: { FORGECTL_TOKEN: botToken.token } });
    expect(reset.code).toBe(0);
    expect(reset.stderr).toContain('Reset the approvals of merge request !1');
    expect(mr1().approved_by).toEqual([]);
  });
});

describe('approvals config', () => {
  it('shows and changes the configuration', async () => {
    const got = await sandbox.run(['approvals', 'config', 'get', '--project', 'acme/api', '-o', 'json']);
    expect(got.json()).toMatchObject({ reset_approvals_on_push: true, merge_requests_author_approval: false, approvers: [], approver_groups: [] });
    const set = await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--merge-requests-disable-committers-approval', '--approvals-before-merge', '1', '-o', 'json']);
    expect(set.code).toBe(0);
    expect(set.json()).toMatchObject({ merge_requests_disable_committers_approval: true, approvals_before_merge: 1 });
    // The seeded commits are root's: as a committer, root may no longer approve.
    const root = await sandbox.run(['approvals', 'approve', '--project', 'acme/api', '--mr', '1']);
    expect(root.code).toBe(4);
    await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--no-merge-requests-disable-committers-approval']);
  });

  it('checks selective code owner removals against reset on push before sending', async () => {
    sandbox.clearRequests();
    const both = await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--reset-approvals-on-push', '--selective-code-owner-removals']);
    expect(both.code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const current = await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--selective-code-owner-removals']);
    expect(current.code).toBe(2);
    expect(current.stderr).toContain('--no-reset-approvals-on-push');
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
    expect((await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api'])).code).toBe(2);

    const ok = await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--no-reset-approvals-on-push', '--selective-code-owner-removals', '-o', 'json']);
    expect(ok.json()).toMatchObject({ reset_approvals_on_push: false, selective_code_owner_removals: true });
    await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--no-selective-code-owner-removals', '--reset-approvals-on-push']);
  });

  it('needs the Maintainer role to change it', async () => {
    const bob = await sandbox.run(['approvals', 'config', 'set', '--project', 'acme/api', '--merge-requests-author-approval'], { env: { FORGECTL_TOKEN: token('bob-token') } });
    expect(bob.code).toBe(4);
  });
});
