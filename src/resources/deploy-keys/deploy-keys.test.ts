import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

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

  it('create takes the public key from --key-file; a private key is refused without being sent or shown, and so is a past expiry', async () => {
    const dir = tempDir();
    const pub = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmL2hzyoCwSJWMJ0LdlHBg6h8blbhQqPYBkd2RD9pUm file@ci';
    writeFileSync(join(dir, 'deploy.pub'), `${pub}\n`);
    // Not a real key: the shape of an OpenSSH private key file, which must never leave the machine.
    const secretBody = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACBJi9oc8qAsEiVjCdC3ZRwYOofG5W4UKj2AZHdkQ/aVJgAAAJg';
    const privateKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${secretBody}\n-----END OPENSSH PRIVATE KEY-----\n`;
    writeFileSync(join(dir, 'deploy'), privateKey);
    const created = await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'from file', '--key-file', join(dir, 'deploy.pub'), '--expires-at', '2031-01-31', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ title: 'from file', key: pub, expires_at: expect.stringMatching(/^2031-01-31/) });
    sandbox.clearRequests();
    for (const argv of [['--key-file', join(dir, 'deploy')], ['--key', privateKey], ['--key', privateKey, '--dry-run']]) {
      const refused = await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'oops', ...argv]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^error: .* is a private key, which must never leave this machine; nothing was sent\nhint: give the public key/);
      expect(refused.stdout + refused.stderr).not.toContain(secretBody);
    }
    const past = await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'old', '--key', pub.replace('file@ci', 'other'), '--expires-at', '2020-01-01']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('error: --expires-at 2020-01-01 is in the past');
    const garbage = await sandbox.run(['deploy-keys', 'create', '--project', 'acme/web', '--title', 'x', '--key', 'not a key']);
    expect(garbage.stderr).toBe('error: --key is not an OpenSSH public key ("ssh-ed25519 AAAA… comment")\n');
    expect(sandbox.requests()).toEqual([]);
  });

  it('deploy-keys instance reads the record the service documents (no projects_with_readonly_access before 16.0)', async () => {
    const documented = [{
      id: 1, title: 'Public key', key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDNJAkI3Wdf0r13c8a5pEExB2YowPWCSVzfZV22pNBc1CuEbyYLHpUyaD0GwpGvFdx2aP7lMEk35k6Rz3ccBF6jRaVJyhsn5VNnW92PMpBJ/P1UebhXwsFHdQf5rTt082cSxWuk61kGWRQtk4ozt/J2DF/dIUVaLvc+z4HomT41fQ==',
      fingerprint: '4a:9d:64:15:ed:3a:e6:07:6e:89:36:b3:3b:03:05:d9', fingerprint_sha256: 'SHA256:Jrs3LD1Ji30xNLtTVf9NDCj7kkBgPBb2pjvTZ3HfIgU', created_at: '2013-10-02T10:12:29Z',
      projects_with_write_access: [{ id: 73, description: null, name: 'project2', name_with_namespace: 'Sidney Jones / project2', path: 'project2', path_with_namespace: 'sidney_jones/project2', created_at: '2021-10-25T18:33:17.550Z' }],
    }, { id: 3, title: 'Another Public key', key: 'ssh-rsa AAAA', created_at: '2013-10-02T11:12:29Z', projects_with_write_access: [] }];
    sandbox.fault({ method: 'GET', path: '^/deploy_keys$', times: 1, status: 200, body: documented });
    const listed = await sandbox.run(['deploy-keys', 'instance', '--fields', 'id,title,projects']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('1\tPublic key\tsidney_jones/project2 (push)\n3\tAnother Public key\t\n');
  });
});
