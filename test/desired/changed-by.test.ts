import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokens } from '../../src/sandbox/model.js';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

/**
 * The round trip with the audit trail: export a seeded group, plan 0; another user changes a badge, an approval rule,
 * a CI/CD variable, a branch protection and a member by hand; plan exits 9 naming each object and who changed it (from
 * the owner's audit events); apply fixes them; plan 0 again.
 */
let clock = new Date('2026-11-20T08:00:00Z');
const sandbox = useTestSandbox({ now: () => clock });
const dir = tempDir();
const tokenOf = (name: string) => tokens(sandbox.db).find((t) => t.name === `${name}-token`)!.token;
const asAlice = () => ({ env: { FORGECTL_TOKEN: tokenOf('alice') } });

describe('plan names who changed a drifted object', () => {
  it('export, plan 0; changes by hand are drift naming the object and its author; apply fixes them; plan 0', async () => {
    expect((await sandbox.run(['variables', 'set', 'LOG_LEVEL', '--project', 'acme/api', '--value', 'info'])).code).toBe(0);
    expect((await sandbox.run(['badges', 'create', '--project', 'acme/api', '--name', 'ci-status', '--link-url', 'https://ci.example.com/api', '--image-url', 'https://ci.example.com/api.svg'])).code).toBe(0);
    const exported = await sandbox.run(['export', '--group', 'acme']);
    expect(exported.code).toBe(0);
    const desired = join(dir, 'acme.yaml');
    writeFileSync(desired, exported.stdout);
    expect(exported.stdout).toContain('name: ci-status');
    const clean = await sandbox.run(['plan', '-f', desired]);
    expect(clean.stdout).toBe('No changes: the file matches 2 projects and 1 group.\n');
    expect(clean.code).toBe(0);

    // alice changes a badge and an approval rule by hand, with her own token, at the sandbox's clock.
    const badgeId = (await sandbox.run(['badges', 'list', '--project', 'acme/api', '-o', 'json'])).json().find((b: { name: string; kind: string }) => b.name === 'ci-status' && b.kind === 'project').id;
    clock = new Date('2026-11-24T10:12:00Z');
    expect((await sandbox.run(['badges', 'update', String(badgeId), '--project', 'acme/api', '--link-url', 'https://ci.example.com/other'], asAlice())).code).toBe(0);
    const ruleId = (await sandbox.run(['approval-rules', 'list', '--project', 'acme/api', '-o', 'json'])).json()[0].id;
    clock = new Date('2026-11-24T10:15:00Z');
    expect((await sandbox.run(['approval-rules', 'update', String(ruleId), '--project', 'acme/api', '--approvals-required', '2'], asAlice())).code).toBe(0);

    clock = new Date('2026-11-24T10:20:00Z');
    expect((await sandbox.run(['variables', 'set', 'LOG_LEVEL', '--project', 'acme/api', '--value', 'debug'], asAlice())).code).toBe(0);

    clock = new Date('2026-11-24T10:25:00Z');
    expect((await sandbox.run(['protected-branches', 'update', 'main', '--project', 'acme/api', '--allow-force-push'], asAlice())).code).toBe(0);
    clock = new Date('2026-11-24T10:30:00Z');
    expect((await sandbox.run(['members', 'update', 'priya', '--project', 'acme/api', '--access-level', 'developer'], asAlice())).code).toBe(0);

    const drift = await sandbox.run(['plan', '-f', desired]);
    expect(drift.code, drift.stdout).toBe(9);
    expect(drift.stdout).toMatch(/ ~ protected branch "?main"? +\(changed by alice 2026-11-24 10:25\)\n +allow_force_push: true → false\n/);
    expect(drift.stdout).toMatch(/ ~ member "?priya"? +\(changed by alice 2026-11-24 10:30\)\n +access_level: "?developer"? → "?maintainer"?\n/);
    expect(drift.stdout).toContain('  ~ badge "ci-status"   (changed by alice 2026-11-24 10:12)\n      link_url: "https://ci.example.com/other" → "https://ci.example.com/api"\n');
    expect(drift.stdout).toContain('  ~ approval rule "Maintainers"   (changed by alice 2026-11-24 10:15)\n      approvals_required: 2 → 1\n');
    expect(drift.stdout).toContain('  ~ variable LOG_LEVEL … *   (changed by alice 2026-11-24 10:20)\n      value: "debug" → "info"\n');

    // The saved plan carries who changed what, and applies.
    const saved = join(dir, 'plan.json');
    expect((await sandbox.run(['plan', '-f', desired, '--out', saved])).code).toBe(9);
    const document = JSON.parse(readFileSync(saved, 'utf8'));
    expect(document.changes.map((c: { key: string; changed_by?: unknown }) => [c.key, c.changed_by])).toEqual([
      ['priya', { author: 'alice', at: '2026-11-24T10:30:00.000Z' }],
      ['ci-status', { author: 'alice', at: '2026-11-24T10:12:00.000Z' }],
      ['Maintainers', { author: 'alice', at: '2026-11-24T10:15:00.000Z' }],
      ['LOG_LEVEL … *', { author: 'alice', at: '2026-11-24T10:20:00.000Z' }],
      ['main', { author: 'alice', at: '2026-11-24T10:25:00.000Z' }],
    ]);
    const applied = await sandbox.run(['apply', '-f', saved, '--yes']);
    expect(applied.code).toBe(0);

    const again = await sandbox.run(['plan', '-f', desired]);
    expect(again.stdout).toBe('No changes: the file matches 2 projects and 1 group.\n');
    expect(again.code).toBe(0);

    // The file changes next: the rule's last change was forgectl's own apply (this run's user), so nobody is named.
    writeFileSync(desired, readFileSync(desired, 'utf8').replace('approvals_required: 1', 'approvals_required: 3'));
    const edited = await sandbox.run(['plan', '-f', desired]);
    expect(edited.code).toBe(9);
    expect(edited.stdout).toContain('  ~ approval rule "Maintainers"\n      approvals_required: 1 → 3\n');
  });

  it('plans without names, silently, when the caller may not read audit events', async () => {
    const desired = join(dir, 'badges.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    badges:\n      - name: ci-status\n        link_url: https://ci.example.com/elsewhere\n        image_url: https://ci.example.com/api.svg\n');
    // A reporter reads badges but not the project's audit events (403).
    const reporter = sandbox.tokenWithRole('reporter');
    sandbox.clearRequests();
    const plan = await sandbox.run(['plan', '-f', desired], { env: { FORGECTL_TOKEN: reporter } });
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  ~ badge "ci-status"\n');
    expect(plan.stdout).not.toContain('changed by');
    expect(plan.stderr).toBe('');
    expect(sandbox.requests().filter((r) => r.path.includes('audit_events')).map((r) => r.status)).toEqual([403]);
  });

  it('asks for the audit events only of owners with drift, once each', async () => {
    const desired = join(dir, 'none.yaml');
    writeFileSync(desired, 'version: 1\nprojects:\n  acme/api:\n    badges:\n      - name: ci-status\n        link_url: https://ci.example.com/api\n        image_url: https://ci.example.com/api.svg\n');
    sandbox.clearRequests();
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
    expect(sandbox.requests().filter((r) => r.path.includes('audit_events'))).toEqual([]);
  });
});
