import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { SEED_KEYS } from './sandbox.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();
const dir = tempDir();

// Fingerprints as `ssh-keygen -l [-E md5] -f` prints them for the seeded keys.
const RSA_SHA256 = 'SHA256:8pCLH1cNnPZiXwY0Tb/OuNjVyE2cJbQFOpMaJ/gRMss';
const ED_MD5 = 'ce:cb:f0:e3:88:71:63:fe:2a:06:1c:3d:46:18:28:23';

describe('keys', () => {
  it('finds a key from a public key file, sending the SHA256 fingerprint with %2F and %3A', async () => {
    const file = join(dir, 'id_rsa.pub');
    writeFileSync(file, `${SEED_KEYS.aliceRsa}\n`);
    sandbox.clearRequests();
    const result = await sandbox.run(['keys', 'find', '--key-file', file, '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ title: 'alice@workstation', user: { username: 'alice' } });
    expect(result.stderr).toContain(RSA_SHA256);
    expect(sandbox.requests().map((r) => r.path)).toEqual([`/api/v4/keys?fingerprint=${encodeURIComponent(RSA_SHA256)}`]);
    expect(sandbox.requests()[0].path).toContain('SHA256%3A8pCLH1cNnPZiXwY0Tb%2FOuNjVyE2cJbQFOpMaJ%2FgRMss');
  });

  it('finds by MD5 (with or without the MD5: prefix) and by SHA256 fingerprint', async () => {
    for (const fp of [ED_MD5, `MD5:${ED_MD5.toUpperCase()}`]) {
      const result = await sandbox.run(['keys', 'find', '--fingerprint', fp, '--fields', 'title']);
      expect(result.stdout).toBe('title\talice@laptop\n');
    }
    const deploy = await sandbox.run(['keys', 'find', '--fingerprint', 'SHA256:llTaLf8GaYcuRNLbbNbkttNVUS6ujwl1qXdsDwZdHps', '-o', 'json']);
    expect(deploy.json().deploy_keys_projects[0]).toMatchObject({ project_id: 1, can_push: true });
  });

  it('gets a key by id, and answers 404 for an unknown fingerprint', async () => {
    expect((await sandbox.run(['keys', 'get', '1', '-o', 'json'])).json().key).toBe(SEED_KEYS.aliceEd25519);
    expect((await sandbox.run(['keys', 'find', '--fingerprint', '00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff'])).code).toBe(5);
  });

  it('refuses bad input before sending: private keys, garbage, both or neither option', async () => {
    const priv = join(dir, 'id_ed25519');
    writeFileSync(priv, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n');
    const garbage = join(dir, 'garbage.pub');
    writeFileSync(garbage, 'ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQAB x\n');
    sandbox.clearRequests();
    const refused = await sandbox.run(['keys', 'find', '--key-file', priv]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('private key');
    expect((await sandbox.run(['keys', 'find', '--key-file', garbage])).code).toBe(2);
    expect((await sandbox.run(['keys', 'find', '--fingerprint', 'abc'])).code).toBe(2);
    expect((await sandbox.run(['keys', 'find'])).code).toBe(2);
    expect((await sandbox.run(['keys', 'find', '--fingerprint', ED_MD5, '--key-file', priv])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('is for administrators only (exit 4 for alice)', async () => {
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    expect((await sandbox.run(['keys', 'get', '1'], { env: { FORGECTL_TOKEN: alice } })).code).toBe(4);
  });
});
