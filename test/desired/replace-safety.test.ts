import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';

/**
 * Applying never loses what it replaces: every value a change needs is read and checked before the first write of
 * the run, a replace shows itself as one, and a replace whose create fails puts the old object back when it can be
 * read, or says that it is gone when it cannot.
 */

const sandbox = useTestSandbox();
const dir = tempDir();
const OLD = 'keep-me-secret-1234';
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
type Stored = { key: string; environment_scope: string; value: string; masked: boolean; hidden: boolean; owner_id: number };
const stored = (key: string) => sandbox.db.table<Stored>('ci_variables').find((v) => v.key === key);
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');

async function maskedVariable(key: string, value = OLD): Promise<void> {
  const set = await sandbox.run(['variables', 'set', key, '--project', 'acme/web', '--masked', '--value-stdin'], { input: value });
  expect(set.code).toBe(0);
}

const hiddenFile = (key: string, extra = '') => file(`${key}.yaml`, `version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: ${key}, value: {env: ${key}}, masked: true, hidden: true${extra}}\n`);

const noSecret = (result: RunResult, ...secrets: string[]) => {
  for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
};

describe('apply: a replace never loses the old object', () => {
  it('a secret that is not set writes nothing (exit 2), naming it; the masked variable is still there', async () => {
    await maskedVariable('REPRO_KEY');
    const desired = hiddenFile('REPRO_KEY');
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('error: project acme/web: variable REPRO_KEY … * value: the environment variable REPRO_KEY is not set; nothing was applied');
    expect(writes()).toEqual([]);
    expect(stored('REPRO_KEY')).toMatchObject({ value: OLD, masked: true, hidden: false });
  });

  it('a {command: …} that fails writes nothing (exit 2), naming the command and how it ended, never what it printed', async () => {
    const desired = file('command.yaml', 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: CMD_KEY, value: {command: "echo half-a-secret-77; exit 3"}, masked: true}\n');
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('error: project acme/web: variable CMD_KEY … * value: the command "echo half-a-secret-77; exit 3" failed: it exited with status 3; nothing was applied');
    expect(applied.stdout + applied.stderr.replace('"echo half-a-secret-77; exit 3"', '')).not.toContain('half-a-secret-77');
    expect(writes()).toEqual([]);
  });

  it('a value that cannot be masked writes nothing (exit 2), without showing it', async () => {
    const desired = hiddenFile('REPRO_KEY');
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { REPRO_KEY: 'has space' } });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('error: project acme/web: variable REPRO_KEY … *: value cannot be masked: it contains whitespace; nothing was applied');
    noSecret(applied, 'has space');
    expect(writes()).toEqual([]);
    expect(stored('REPRO_KEY')).toMatchObject({ value: OLD, hidden: false });
  });

  it('checks the whole run before its first write: one missing secret in a later project writes nothing anywhere', async () => {
    const desired = file('two.yaml', [
      'version: 1',
      'projects:',
      '  acme/api:',
      '    variables:',
      '      - {key: FIRST_TOKEN, value: {env: FIRST_TOKEN}, masked: true}',
      '  acme/web:',
      '    variables:',
      '      - {key: REPRO_KEY, value: {env: REPRO_KEY}, masked: true, hidden: true}',
      '      - {key: SHORT_ONE, value: {env: SHORT_ONE}, masked: true}',
      '',
    ].join('\n'));
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { FIRST_TOKEN: 'first-token-value-1', SHORT_ONE: 'short' } });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('project acme/web: variable REPRO_KEY … * value: the environment variable REPRO_KEY is not set\n');
    expect(applied.stderr).toContain('project acme/web: variable SHORT_ONE … *: value must be at least 8 characters to be masked\n');
    expect(applied.stderr).toContain('error: 2 values the changes need are missing or invalid; nothing was applied');
    expect(writes()).toEqual([]);
    expect(stored('FIRST_TOKEN')).toBeUndefined();
  });

  it('plans a change of hidden as a replace, with its reason, in the text, in -o json and in a saved plan', async () => {
    const desired = hiddenFile('REPRO_KEY');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  -/+ variable REPRO_KEY … *   (deleted and created again: hidden is set only when a variable is created)\n      hidden: false → true\n      value: (write-only)\n');
    expect(plan.stdout).toContain('Plan: 1 to replace in 1 of 1 project.');
    const json = (await sandbox.run(['plan', '-f', desired, '-o', 'json'])).json();
    expect(json.changes).toEqual([expect.objectContaining({ action: 'replace', key: 'REPRO_KEY … *', replace_reason: 'hidden is set only when a variable is created' })]);
    expect(json.changes[0].old_unreadable).toBeUndefined();
    const saved = join(dir, 'hidden-plan.json');
    expect((await sandbox.run(['plan', '-f', desired, '--out', saved])).code).toBe(9);
    expect(JSON.parse(readFileSync(saved, 'utf8')).changes).toEqual([expect.objectContaining({ action: 'replace', replace_reason: 'hidden is set only when a variable is created' })]);
  });

  it('--dry-run shows both requests of a replace (the value redacted) and sends nothing', async () => {
    const desired = hiddenFile('REPRO_KEY');
    sandbox.clearRequests();
    const dry = await sandbox.run(['apply', '-f', desired, '--yes', '--dry-run'], { env: { REPRO_KEY: 'new-secret-value-99' } });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^DELETE .*\/projects\/acme%2Fweb\/variables\/REPRO_KEY/m);
    expect(dry.stdout).toMatch(/^POST .*\/projects\/acme%2Fweb\/variables\n(.*\n)*\s+"value": "\[REDACTED\]"/m);
    noSecret(dry, 'new-secret-value-99');
    expect(writes()).toEqual([]);
  });

  it('a 400 on the create of a replace puts the old (masked, readable) variable back and says so (exit 9)', async () => {
    const desired = hiddenFile('REPRO_KEY');
    sandbox.fault({ method: 'POST', path: '/projects/[^/]+/variables$', status: 400, body: { message: { value: ['is invalid'] } } });
    const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { REPRO_KEY: 'new-secret-value-99' } });
    expect(applied.code).toBe(9);
    expect(applied.stdout).toContain('project acme/web\tvariable REPRO_KEY … *\treplace\tfailed\tdeleted to be created again, but the create failed: value is invalid (POST /projects/acme%2Fweb/variables → 400); the old variable REPRO_KEY … * was put back as it was');
    expect(stored('REPRO_KEY')).toMatchObject({ value: OLD, masked: true, hidden: false });
    noSecret(applied, OLD, 'new-secret-value-99');
  });

  it('the server failing on the create (500) puts it back too; then the replace goes through', async () => {
    const desired = hiddenFile('REPRO_KEY');
    sandbox.fault({ method: 'POST', path: '/projects/[^/]+/variables$', status: 500 });
    const failed = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { REPRO_KEY: 'new-secret-value-99' } });
    expect(failed.code).toBe(9);
    expect(failed.stdout).toContain('was put back as it was');
    expect(stored('REPRO_KEY')).toMatchObject({ value: OLD, hidden: false });
    const applied = await sandbox.run(['apply', '-f', desired, '--yes'], { env: { REPRO_KEY: 'new-secret-value-99' } });
    expect(applied.code).toBe(0);
    expect(stored('REPRO_KEY')).toMatchObject({ value: 'new-secret-value-99', hidden: true });
  });

  it('unhiding a hidden variable says its old value cannot be read back, and a failed create says it is gone', async () => {
    const desired = file('unhide.yaml', 'version: 1\nprojects:\n  acme/web:\n    variables:\n      - {key: REPRO_KEY, value: {env: REPRO_KEY}, masked: true, hidden: false}\n');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.stdout).toContain('  -/+ variable REPRO_KEY … *   (deleted and created again: hidden is set only when a variable is created; its old value cannot be read back)\n');
    expect((await sandbox.run(['plan', '-f', desired, '-o', 'json'])).json().changes[0]).toMatchObject({ action: 'replace', old_unreadable: true });
    sandbox.fault({ method: 'POST', path: '/projects/[^/]+/variables$', status: 503, times: 10 });
    const applied = await sandbox.run(['apply', '-f', desired, '--yes', '--retries', '0'], { env: { REPRO_KEY: 'plain-again-value-1' } });
    expect(applied.code).toBe(9);
    expect(applied.stdout).toContain('the old variable REPRO_KEY … * could not be read back before the delete, so it is gone: create it again');
    expect(stored('REPRO_KEY')).toBeUndefined();
    sandbox.faults.clear();
  });

  it('asks first: off a terminal without --yes it exits 2 and sends nothing', async () => {
    await maskedVariable('ASK_KEY');
    const desired = hiddenFile('ASK_KEY');
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired], { env: { ASK_KEY: 'new-secret-value-99' } });
    expect(applied.code).toBe(2);
    expect(applied.stderr).toMatch(/--yes/);
    expect(writes()).toEqual([]);
    expect(stored('ASK_KEY')).toMatchObject({ value: OLD, hidden: false });
  });

  it('a protected tag whose new protection fails is protected again as it was', async () => {
    const desired = file('tags.yaml', 'version: 1\nprojects:\n  acme/api:\n    protected_tags:\n      - {name: "release-*", create_access_level: developer}\n');
    expect((await sandbox.run(['plan', '-f', desired])).stdout).toContain(`  -/+ protected tag "release-*"   (deleted and created again: the service cannot change a protected tag's level in place)\n`);
    sandbox.fault({ method: 'POST', path: '/projects/[^/]+/protected_tags$', status: 422, body: { message: 'refused' } });
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(9);
    expect(applied.stdout).toContain('the old protected tag "release-*" was put back as it was');
    const tags = (await sandbox.run(['protected-tags', 'list', '--project', 'acme/api', '-o', 'json'])).json();
    expect(tags).toEqual([expect.objectContaining({ name: 'release-*', create_access_levels: [expect.objectContaining({ access_level: 40 })] })]);
    expect((await sandbox.run(['apply', '-f', desired, '--yes'])).code).toBe(0);
    expect((await sandbox.run(['plan', '-f', desired])).code).toBe(0);
  });

  it('a shared group whose new share fails is shared again as it was', async () => {
    const group = await sandbox.call('POST', '/groups', { name: 'partners', path: 'partners' });
    expect(group.status).toBe(201);
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/share', { group_id: group.body.id, group_access: 20 })).status).toBe(201);
    const desired = file('share.yaml', 'version: 1\nprojects:\n  acme/web:\n    members:\n      groups: {partners: developer}\n');
    expect((await sandbox.run(['plan', '-f', desired])).stdout).toContain("(deleted and created again: the service cannot change a shared group's role or expiry in place)");
    sandbox.fault({ method: 'POST', path: '/projects/[^/]+/share$', status: 500 });
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(9);
    expect(applied.stdout).toContain('the old member group partners was put back as it was');
    const shared = (await sandbox.call('GET', '/projects/acme%2Fweb')).body.shared_with_groups;
    expect(shared).toEqual([expect.objectContaining({ group_full_path: 'partners', group_access_level: 20 })]);
  });

  it("never removes the default branch's protection, even when a saved plan made before the default branch moved says so", async () => {
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/repository/branches', { branch: 'stable', ref: 'main' })).status).toBe(201);
    expect((await sandbox.run(['protected-branches', 'protect', '--name', 'stable', '--project', 'acme/web'])).code).toBe(0);
    const desired = file('prune-branches.yaml', 'version: 1\nprune: all\nprojects:\n  acme/web:\n    protected_branches: []\n');
    const saved = join(dir, 'prune-plan.json');
    const plan = await sandbox.run(['plan', '-f', desired, '--out', saved]);
    expect(plan.stdout).toContain('  - protected branch "stable": unprotected, the branch takes pushes, force pushes and deletion from every Developer   (prune: needs apply --prune)');
    expect(plan.stdout).not.toContain('protected branch "main"');
    expect((await sandbox.call('PUT', '/projects/acme%2Fweb', { default_branch: 'stable' })).status).toBe(200);
    const applied = await sandbox.run(['apply', '-f', saved, '--prune', '--yes']);
    expect(applied.code).toBe(9);
    expect(applied.stdout).toContain('forgectl never removes the protection of the default branch (stable) of project acme/web');
    const names = (await sandbox.run(['protected-branches', 'list', '--project', 'acme/web', '-o', 'json'])).json().map((rule: { name: string }) => rule.name);
    expect(names).toContain('stable');
    expect((await sandbox.call('PUT', '/projects/acme%2Fweb', { default_branch: 'main' })).status).toBe(200);
  });

  it('a new mirror URL sends its credentials again: read before anything is written', async () => {
    const desired = file('mirror.yaml', 'version: 1\nprojects:\n  acme/web:\n    pull_mirror: {url: "https://src.example.com/moved.git", enabled: true, auth_user: bot, auth_password: {env: MIRROR_PASSWORD}}\n');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.stdout).toMatch(/~ pull mirror\n(.*\n)*\s+auth_password: \(write-only\)\n/);
    sandbox.clearRequests();
    const applied = await sandbox.run(['apply', '-f', desired, '--yes']);
    expect(applied.code).toBe(2);
    expect(applied.stderr).toContain('error: project acme/web: pull mirror auth_password: the environment variable MIRROR_PASSWORD is not set; nothing was applied');
    expect(writes()).toEqual([]);
  });

  it('a delete of a hidden variable says its value is lost for good, in the text plan and in -o json; a plain one says nothing more', async () => {
    await sandbox.run(['variables', 'set', 'GONE_FOR_GOOD', '--project', 'acme/web', '--masked', '--hidden', '--value-stdin'], { input: OLD });
    await sandbox.run(['variables', 'set', 'PLAIN_ONE', '--project', 'acme/web', '--value', 'plain']);
    const desired = file('prune-hidden.yaml', 'version: 1\nprune: all\nprojects:\n  acme/web:\n    variables: []\n');
    const plan = await sandbox.run(['plan', '-f', desired]);
    expect(plan.code).toBe(9);
    expect(plan.stdout).toContain('  - variable GONE_FOR_GOOD … *: its value is hidden and cannot be read back: deleting it loses the value for good   (prune: needs apply --prune)\n');
    expect(plan.stdout).toContain('  - variable PLAIN_ONE … *   (prune: needs apply --prune)\n');
    const changes = (await sandbox.run(['plan', '-f', desired, '-o', 'json'])).json().changes as Array<{ key: string; note?: string }>;
    expect(changes.find((change) => change.key === 'GONE_FOR_GOOD … *')).toMatchObject({ action: 'delete', prune: true, note: expect.stringContaining('cannot be read back') });
    expect(changes.find((change) => change.key === 'PLAIN_ONE … *')?.note).toBeUndefined();
  });
});
