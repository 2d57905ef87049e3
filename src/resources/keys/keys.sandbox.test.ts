import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';
import { needs } from '../../../test/helpers/system.js';
import { SEED_KEYS } from './sandbox.js';
import { md5Fingerprint, parsePublicKey, sha256Fingerprint } from './values.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

async function get(path: string, token = sandbox.adminToken) {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': token } });
  return { status: response.status, body: await response.json() };
}

describe('fingerprints', () => {
  it('match ssh-keygen for Ed25519 and RSA keys', () => {
    const expected: Record<string, [string, string]> = {
      aliceEd25519: ['ce:cb:f0:e3:88:71:63:fe:2a:06:1c:3d:46:18:28:23', 'SHA256:JerwpBO2AG6U57CczPP7bsDhUDUIhyU59Ry2BxswxOU'],
      aliceRsa: ['94:8e:69:e2:29:78:49:a8:b5:0a:18:cb:bf:84:1b:1b', 'SHA256:8pCLH1cNnPZiXwY0Tb/OuNjVyE2cJbQFOpMaJ/gRMss'],
      deploy: ['d7:09:2f:34:39:16:d9:1b:cc:fc:1f:92:68:10:65:20', 'SHA256:llTaLf8GaYcuRNLbbNbkttNVUS6ujwl1qXdsDwZdHps'],
    };
    for (const [name, [md5, sha256]] of Object.entries(expected)) {
      const key = parsePublicKey(SEED_KEYS[name as keyof typeof SEED_KEYS])!;
      expect([md5Fingerprint(key.blob), sha256Fingerprint(key.blob)]).toEqual([md5, sha256]);
    }
  });

  it('match ssh-keygen on a freshly made key', (context) => {
    needs(context, 'ssh-keygen');
    const dir = tempDir();
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fresh', '-f', join(dir, 'k')]);
    const pub = execFileSync('ssh-keygen', ['-y', '-f', join(dir, 'k')]).toString();
    writeFileSync(join(dir, 'k.pub'), pub);
    const printed = execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'k.pub')]).toString().split(' ')[1];
    expect(sha256Fingerprint(parsePublicKey(pub)!.blob)).toBe(printed);
  });
});

describe('sandbox: keys (spec 1)', () => {
  it('looks keys up by MD5 and by URL-encoded SHA256 fingerprint', async () => {
    const md5 = await get('/keys?fingerprint=94:8e:69:e2:29:78:49:a8:b5:0a:18:cb:bf:84:1b:1b');
    expect(md5.status).toBe(200);
    expect(md5.body).toMatchObject({ title: 'alice@workstation', user: { username: 'alice', email: 'alice@example.com' } });
    expect(md5.body.deploy_keys_projects).toBeUndefined();
    const sha = await get(`/keys?fingerprint=${encodeURIComponent('SHA256:8pCLH1cNnPZiXwY0Tb/OuNjVyE2cJbQFOpMaJ/gRMss')}`);
    expect(sha.body.id).toBe(md5.body.id);
  });

  it('adds deploy_keys_projects for a deploy key', async () => {
    const r = await get(`/keys?fingerprint=${encodeURIComponent('SHA256:llTaLf8GaYcuRNLbbNbkttNVUS6ujwl1qXdsDwZdHps')}`);
    expect(Object.keys(r.body.deploy_keys_projects[0])).toEqual(['id', 'deploy_key_id', 'project_id', 'created_at', 'updated_at', 'can_push']);
  });

  it('answers 400, 404 and 403 as real instances do', async () => {
    expect(await get('/keys')).toEqual({ status: 400, body: { error: 'fingerprint is missing' } });
    expect(await get('/keys?fingerprint=nonsense')).toEqual({ status: 400, body: { message: 'Failed to return the key' } });
    expect(await get('/keys/999')).toEqual({ status: 404, body: { message: '404 Key Not Found' } });
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    expect((await get('/keys/1', alice)).status).toBe(403);
  });
});
