import { describe, expect, it } from 'vitest';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { waitForMembers } from './desired.js';
import { fleetProjectPath } from '../../sandbox/seed.js';
import { tempDir, tempFile, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox({ fleet: 3 });
const dir = tempDir();
const file = (name: string, text: string): string => tempFile(text, name, dir);
const names = async (project: string): Promise<string[]> => (await sandbox.run(['protected-branches', 'list', '--project', project, '-o', 'json'])).json().map((r: { name: string }) => r.name).sort();

describe('desired state: protected_branches', () => {
  it('export, plan 0; a protection changed by hand is drift naming it; apply fixes it; plan 0', async () => {
    const exported = await sandbox.run(['export', '--project', 'acme/api']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('protected_branches:\n      - name: main\n        allowed_to_push:\n          - maintainer\n');
    const desired = file('api.yaml', exported.stdout);
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);

    expect((await sandbox.run(['protected-branches', 'update', 'release/*', '--project', 'acme/api', '--allow-push', 'user:alice', '--allow-force-push'])).code).toBe(0);
    const drift = await sandbox.run(['plan', '-f', desired]);
    expect(drift.code).toBe(9);
    expect(drift.stdout).toContain([
      'project acme/api',
      '  ~ protected branch "release/*"',
      '      allowed_to_push: ["maintainer","user:alice"] → ["maintainer"]',
      '      allow_force_push: true → false',
    ].join('\n'));
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toBe('project acme/api\tprotected branch "release/*"\tupdate\tdone\t\n');
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
  });

  it("adopts the default branch's protection when listed and leaves it alone when not, even with prune: all", async () => {
    const project = fleetProjectPath(1);
    const adopt = file('adopt.yaml', `target: ${project}\nprojects:\n  ${project}:\n    protected_branches:\n      - {name: main, allowed_to_merge: [developer, maintainer]}\n      - {name: "release/*", allowed_to_push: [], allowed_to_merge: [maintainer]}\n`);
    const plan = await sandbox.run(['plan', '-f', adopt]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  ~ protected branch "main"\n      allowed_to_merge: ["maintainer"] → ["developer","maintainer"]');
    expect(plan.stdout).toContain('  + protected branch "release/*"');
    expect((await sandbox.run(['apply', '-f', adopt, '--yes'])).code).toBe(0);
    expect((await sandbox.run(['plan', '-f', adopt])).code).toBe(0);

    // A file without the default branch, pruning all: the other rule goes, the default branch's stays.
    const prune = file('prune.yaml', `prune: all\ntarget: ${project}\nprojects:\n  ${project}:\n    protected_branches: []\n`);
    const pruning = await sandbox.run(['plan', '-f', prune]);
    // What the unprotect costs is said on its line.
    expect(pruning.stdout).toContain('  - protected branch "release/*": unprotected, the branches it matches take pushes, force pushes and deletion from every Developer   (prune: needs apply --prune)\n');
    expect(pruning.stdout).not.toContain('protected branch "main"');
    expect((await sandbox.run(['apply', '-f', prune, '--prune', '--yes'])).code).toBe(0);
    expect(await names(project)).toEqual(['main']);
    expect((await sandbox.run(['plan', '-f', prune])).code).toBe(0);
  });

  it('waits for a membership added while it applies instead of failing', async () => {
    const project = fleetProjectPath(2);
    const user = await sandbox.call('POST', '/users', { username: 'newcomer', name: 'Newcomer', email: 'newcomer@example.com', password: 'long-enough-password-1' });
    expect(user.status).toBe(201);
    const desired = file('member.yaml', `target: ${project}\nprojects:\n  ${project}:\n    protected_branches:\n      - {name: main, allowed_to_push: [maintainer, user:newcomer]}\n`);
    // The membership lands a moment after the apply has started (as when another section or system adds it).
    const joined = new Promise<number>((resolve) => setTimeout(() => {
      void sandbox.call('POST', `/projects/${encodeURIComponent(project)}/members`, { user_id: user.body.id, access_level: 30 }).then((r) => resolve(r.status));
    }, 600));
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(await joined).toBe(201);
    expect(applied.code).toBe(0);
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
  });

  it('gives up after its bound with the refusal and what it waited for; other errors pass at once', async () => {
    const refusal = new ApiError('Push access levels user is not a member of the project', 422, 'POST', '/projects/1/protected_branches', undefined);
    let tries = 0;
    const error = await waitForMembers(async () => { tries++; throw refusal; }, 'protected branch "main" of project p names user:x', { boundMs: 60, firstMs: 10, maxMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.rejected);
    expect((error as CliError).message).toMatch(/^protected branch "main" of project p names user:x: Push access levels user is not a member of the project \(still so after waiting \d+ s/);
    expect(tries).toBeGreaterThan(2);
    tries = 0;
    const other = new ApiError('Forbidden', 403, 'POST', '/x', undefined);
    await expect(waitForMembers(async () => { tries++; throw other; }, 'x')).rejects.toBe(other);
    expect(tries).toBe(1);
  });
});
