/**
 * `users offboard` killed half-way: the built forgectl, as a separate process, is killed (SIGKILL: no handler runs)
 * right after the instance removed the first membership; the next run finds the rest and ends in the same state as a
 * run that was never interrupted.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, BUILT, useTestSandbox } from '../helpers/cli.js';
import { departingUser, leftOf, OFFBOARDED } from '../helpers/offboarding.js';

const sandbox = useTestSandbox();

async function until(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.skipIf(!BUILT)('users offboard killed after its first removal', () => {
  it('the next run finishes it: blocked, no membership, no active token or key', async () => {
    const user = await departingUser(sandbox, 'interrupted');
    // The first removal is made, and its answer held back: the process is killed while it waits for it.
    sandbox.fault({ method: 'DELETE', path: '/members/\\d+$', answer_latency_ms: 60_000 });
    const child = spawn(process.execPath, [BIN, 'users', 'offboard', 'interrupted', '--yes'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...sandbox.env() } as NodeJS.ProcessEnv, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const memberships = async () => (await leftOf(sandbox, user.id)).memberships.length;
    await until(async () => (await memberships()) === 2);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const half = await leftOf(sandbox, user.id);
    expect(half.state).toBe('blocked');
    expect(half.memberships).toHaveLength(2);
    // (The list of personal tokens holds the impersonation token too.)
    expect([half.tokens, half.impersonation, half.ssh, half.gpg].map((left) => left.length)).toEqual([2, 1, 1, 1]);

    const plan = await sandbox.run(['users', 'offboard', 'interrupted', '--plan-only', '-o', 'json']);
    expect(plan.code).toBe(9);
    expect(plan.json<Array<{ action: string }>>().map((row) => row.action)).toEqual(['remove-membership', 'remove-membership', 'revoke-token', 'revoke-impersonation-token', 'delete-ssh-key', 'delete-gpg-key']);
    const again = await sandbox.run(['users', 'offboard', 'interrupted', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(await leftOf(sandbox, user.id)).toEqual(OFFBOARDED);
    expect((await sandbox.run(['users', 'offboard', 'interrupted', '--yes'])).stderr).toContain('nothing to do');
  }, 60_000);
});
