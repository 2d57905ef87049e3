/** What apply shows and asks before it deletes: the deletions counted in the question, none said to need --prune once given. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

describe('apply asks before it deletes', () => {
  it('names the deletions in its question, and with --prune does not show them as needing it', async () => {
    await sandbox.run(['variables', 'set', 'OLD_ONE', '--project', 'acme/web', '--value', 'x']);
    await sandbox.run(['variables', 'set', 'OLD_TWO', '--project', 'acme/web', '--value', 'y']);
    const desired = join(tempDir(), 'desired.yaml');
    writeFileSync(desired, 'version: 1\nprune: all\nprojects:\n  acme/web:\n    variables: []\n    push_rule: {max_file_size: 9}\n');
    sandbox.clearRequests();
    const pruned = await sandbox.run(['apply', '-f', desired, '--prune']);
    expect(pruned.code).toBe(2);
    expect(pruned.stderr).toContain('  - variable OLD_ONE … *\n');
    expect(pruned.stderr).not.toContain('needs apply --prune');
    expect(pruned.stderr).toMatch(/^error: confirmation needed: Apply 6 changes \(5 deletions\) to 1 project\?$/m);
    // Without --prune the deletions are skipped: shown as needing it, and not counted in the question.
    const kept = await sandbox.run(['apply', '-f', desired]);
    expect(kept.stderr).toContain('  - variable OLD_ONE … *   (prune: needs apply --prune)\n');
    expect(kept.stderr).toMatch(/^error: confirmation needed: Apply 1 change to 1 project\?$/m);
    expect(sandbox.requests().filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('says what disabling an integration costs: its settings, credentials too, are reset', async () => {
    const desired = join(tempDir(), 'off.yaml');
    writeFileSync(desired, 'version: 1\ngroups:\n  acme:\n    integrations:\n      bugzilla: null\n');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('group acme\n  - integration bugzilla: disabled, its settings are reset by the service: enabling it again needs them all, credentials too\n');
  });

  it('says what removing a protected tag, an approval rule or a push rule costs', async () => {
    expect((await sandbox.run(['push-rule', 'set', '--project', 'acme/web', '--max-file-size', '20'])).code).toBe(0);
    const desired = join(tempDir(), 'loose.yaml');
    writeFileSync(desired, 'version: 1\nprune: all\nprojects:\n  acme/api:\n    protected_tags: []\n    approval_rules: []\n  acme/web:\n    push_rule: null\n');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  - protected tag "release-*": unprotected, the tags it matches may be created and deleted by every Developer   (prune: needs apply --prune)\n');
    expect(plan.stdout).toContain('  - approval rule "Maintainers": merge requests no longer need the approvals it asks for   (prune: needs apply --prune)');
    expect(plan.stdout).toMatch(/project acme\/web\n {2}- push rule: pushes are no longer checked by any of its rules.*\n/);
  });
});
