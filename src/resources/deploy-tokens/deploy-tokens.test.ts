import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('deploy-tokens commands', () => {
  it('lists the tokens of a project, a group and the instance, never with values', async () => {
    const project = await sandbox.run(['deploy-tokens', 'list', '--project', 'acme/api', '-o', 'json']);
    expect(project.code).toBe(0);
    expect(project.json().map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['k8s-pull', 'release-mirror']));
    expect(project.stdout).not.toContain('gldt-');
    const active = await sandbox.run(['deploy-tokens', 'list', '--group', 'acme', '--active', '-o', 'json']);
    expect(active.json().every((t: { revoked: boolean; expired: boolean }) => !t.revoked && !t.expired)).toBe(true);
    const instance = await sandbox.run(['deploy-tokens', 'list', '--instance', '-o', 'json']);
    expect(instance.json().some((t: { name: string; revoked: boolean }) => t.name === 'old-deployer' && t.revoked)).toBe(true);
  });

  it('needs exactly one place, and refuses bad scopes, usernames and expiries before sending anything', async () => {
    sandbox.clearRequests();
    const none = await sandbox.run(['deploy-tokens', 'list']);
    expect(none).toMatchObject({ code: 2 });
    expect(none.stderr).toContain('give --project, --group or --instance');
    const cases = [
      ['--scopes', 'read_registry,api'],
      ['--scopes', 'read_registry', '--username', 'has space'],
      ['--scopes', 'read_registry', '--expires-at', '2001-01-01'],
      ['--scopes', 'read_registry', '--group', 'acme'],
    ];
    for (const extra of cases) {
      const result = await sandbox.run(['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'x', ...extra]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')[0]).toMatch(/^error: /);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('creates one and prints its value once; --output-file writes it 0600 and prints no value', async () => {
    const shown = await sandbox.run(['deploy-tokens', 'create', '--project', 'acme/web', '--name', 'pull', '--scopes', 'read_registry', '--expires-in', '30d', '-o', 'json']);
    expect(shown.code).toBe(0);
    expect(shown.json()).toMatchObject({ name: 'pull', scopes: ['read_registry'], revoked: false });
    expect(shown.json().token).toMatch(/^gldt-/);

    const file = join(tempDir(), 'deploy.token');
    const saved = await sandbox.run(['deploy-tokens', 'create', '--group', 'acme', '--name', 'ci', '--scopes', 'read_package_registry', '--username', 'ci-bot', '--output-file', file, '-o', 'json']);
    expect(saved.code).toBe(0);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^gldt-/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(saved.stdout).not.toContain(token);
    expect(saved.json()).toMatchObject({ username: 'ci-bot' });
    expect(saved.stderr).toContain(`to ${file} (mode 0600)`);
  });

  it('does not replace an existing file without confirmation, and creates nothing then', async () => {
    const file = join(tempDir(), 'taken.token');
    writeFileSync(file, 'keep me\n');
    sandbox.clearRequests();
    const refused = await sandbox.run(['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'x', '--scopes', 'read_repository', '--output-file', file]);
    expect(refused.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
    const missingDir = await sandbox.run(['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'x', '--scopes', 'read_repository', '--output-file', join(file, 'no', 'such')]);
    expect(missingDir.code).toBe(2);
    expect(existsSync(join(file, 'no'))).toBe(false);
    expect(sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('revokes after asking: --yes off a terminal; the token leaves the project list and the instance list, as the service destroys it', async () => {
    const created = (await sandbox.call('POST', '/projects/acme%2Fapi/deploy_tokens', { name: 'doomed', scopes: ['read_repository'] })).body;
    const asked = await sandbox.run(['deploy-tokens', 'revoke', String(created.id), '--project', 'acme/api']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`Revoke deploy token ${created.id} ("doomed"`);
    const revoked = await sandbox.run(['deploy-tokens', 'revoke', String(created.id), '--project', 'acme/api', '--yes']);
    expect(revoked.code).toBe(0);
    expect((await sandbox.call('GET', `/projects/acme%2Fapi/deploy_tokens/${created.id}`)).status).toBe(404);
    const all = await sandbox.run(['deploy-tokens', 'list', '--instance', '--all', '-o', 'json']);
    expect(all.json().find((t: { id: number }) => t.id === created.id)).toBeUndefined();
    // One revoked in the web interface stays listed, revoked (the seed's old-deployer).
    expect(all.json().find((t: { name: string }) => t.name === 'old-deployer')).toMatchObject({ revoked: true });
    const missing = await sandbox.run(['deploy-tokens', 'revoke', '9999', '--group', 'acme', '--yes']);
    expect(missing.code).toBe(5);
  });
});
