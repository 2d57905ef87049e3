import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFgrWUVS92aTH7L9CyzOEGGVlhcKMxiHM94X5TZUM2WI release@ci';
const SHA256 = 'SHA256:';

describe('deploy keys in the sandbox', () => {
  it('creates a project deploy key, enables it on another project, updates, finds it by fingerprint, and deletes', async () => {
    const created = await sandbox.call('POST', '/projects/acme%2Fweb/deploy_keys', { title: 'release', key: KEY, can_push: true });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['id', 'title', 'created_at', 'expires_at', 'key', 'fingerprint', 'fingerprint_sha256', 'can_push']);
    expect(created.body).toMatchObject({ title: 'release', key: KEY, can_push: true });
    expect(created.body.fingerprint_sha256.startsWith(SHA256)).toBe(true);
    const id = created.body.id;
    expect((await sandbox.call('POST', '/projects/acme%2Fweb/deploy_keys', { title: 'again', key: KEY })).status).toBe(400);
    const enabled = await sandbox.call('POST', `/projects/acme%2Fapi/deploy_keys/${id}/enable`);
    expect(enabled.status).toBe(201);
    const onApi = await sandbox.call('GET', `/projects/acme%2Fapi/deploy_keys/${id}`);
    expect(onApi.body.can_push).toBe(false);
    const updated = await sandbox.call('PUT', `/projects/acme%2Fapi/deploy_keys/${id}`, { can_push: true, title: 'renamed' });
    expect(updated.body).toMatchObject({ title: 'renamed', can_push: true });
    const found = await sandbox.call('GET', `/keys?fingerprint=${encodeURIComponent(created.body.fingerprint_sha256)}`);
    expect(found.body).toMatchObject({ id, deploy_keys_projects: [expect.objectContaining({ can_push: true }), expect.objectContaining({ can_push: true })] });
    const all = await sandbox.call('GET', '/deploy_keys');
    const instance = all.body.find((k: { id: number }) => k.id === id);
    expect(instance.projects_with_write_access.map((p: { path_with_namespace: string }) => p.path_with_namespace).sort()).toEqual(['acme/api', 'acme/web']);
    expect((await sandbox.call('DELETE', `/projects/acme%2Fweb/deploy_keys/${id}`)).status).toBe(204);
    // Still on acme/api; gone with the last project.
    expect((await sandbox.call('GET', `/keys/${id}`)).status).toBe(200);
    expect((await sandbox.call('DELETE', `/projects/acme%2Fapi/deploy_keys/${id}`)).status).toBe(204);
    expect(await sandbox.call('GET', `/keys/${id}`)).toEqual({ status: 404, body: { message: '404 Key Not Found' } });
    expect(await sandbox.call('GET', `/projects/acme%2Fapi/deploy_keys/${id}`)).toEqual({ status: 404, body: { message: '404 Deploy Key Not Found' } });
    const developer = sandbox.tokenWithRole('developer');
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/deploy_keys', undefined, developer)).status).toBe(403);
  });

  it('creates instance deploy keys (administrators) that projects then enable', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDQKf1mDC9bj1YFBwg/q7vePm8xr2xn2S/NAqCuzgXgT shared@ci';
    const created = await sandbox.call('POST', '/deploy_keys', { title: 'shared', key });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'shared', projects_with_write_access: [], projects_with_readonly_access: [] });
    expect((await sandbox.call('GET', '/deploy_keys?public=true')).body.map((k: { title: string }) => k.title)).toEqual(['shared']);
    expect((await sandbox.call('POST', '/deploy_keys', { title: 'x', key }, sandbox.tokenWithRole('owner'))).status).toBe(403);
  });
});

describe('deploy-keys commands', () => {
  it('create, enable on another project, instance list, and delete only with --yes', async () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPIvJXfBjL3LXjcbcNVbpWtv4YckfjoC7KwC4etuwK4S cli@ci';
    const created = await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'cli', '--key', key, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const id = String(created.json().id);
    const enabled = await sandbox.run(['deploy-keys', 'enable', id, '--project', 'acme/api']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stderr).toContain(`Enabled deploy key ${id} ("cli") on project acme/api`);
    const instance = await sandbox.run(['deploy-keys', 'instance', '--fields', 'id,projects']);
    expect(instance.stdout).toContain(`${id}\tacme/web, acme/api\n`);
    sandbox.clearRequests();
    expect((await sandbox.run(['deploy-keys', 'delete', id, '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await sandbox.run(['deploy-keys', 'delete', id, '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'bad'])).code).toBe(2);
  });
});
