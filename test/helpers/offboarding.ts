/** The departing user of the offboarding tests, made through the API, and what they can still reach afterwards. */
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'vitest';
import type { TestSandbox } from './cli.js';

/** What the helpers need of a sandbox: its API, as root (a test sandbox, or a sandbox process through fetch). */
export type SandboxApi = Pick<TestSandbox, 'call'>;

const GPG_KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ0Xb3RYJKwYBBAHaRw8BAQdAoffboardtestkey\n=leav\n-----END PGP PUBLIC KEY BLOCK-----';
/** An expiry the service accepts (within a year). */
export const EXPIRES = new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10);

/** A new ed25519 public key in OpenSSH's form (each user's key is their own: the service refuses a key taken). */
function sshPublicKey(comment: string): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

export async function made(sandbox: SandboxApi, path: string, body: Record<string, unknown>): Promise<any> {
  const answer = await sandbox.call('POST', path, body);
  expect(answer.status, `POST ${path}: ${answer.text}`).toBe(201);
  return answer.body;
}

/**
 * The departing user of the done criterion, made through the API: Developer of group ops, Maintainer of the project
 * ops/sre/runbooks (a subgroup's), Reporter of group contractors, which acme/web is shared with.
 */
export async function departingUser(sandbox: SandboxApi, username: string): Promise<{ id: number }> {
  const user = await made(sandbox, '/users', { username, name: `Leaving ${username}`, email: `${username}@example.com`, password: 'long-enough-pw-1' });
  const ops = await made(sandbox, '/groups', { name: `Ops ${username}`, path: `ops-${username}` });
  const sre = await made(sandbox, '/groups', { name: 'SRE', path: 'sre', parent_id: ops.id });
  const runbooks = await made(sandbox, '/projects', { name: 'runbooks', path: 'runbooks', namespace_id: sre.id });
  const contractors = await made(sandbox, '/groups', { name: `Contractors ${username}`, path: `contractors-${username}` });
  await made(sandbox, `/projects/acme%2Fweb/share`, { group_id: contractors.id, group_access: 20 });
  await made(sandbox, `/groups/${ops.id}/members`, { user_id: user.id, access_level: 30 });
  await made(sandbox, `/projects/${runbooks.id}/members`, { user_id: user.id, access_level: 40 });
  await made(sandbox, `/groups/${contractors.id}/members`, { user_id: user.id, access_level: 20 });
  await made(sandbox, `/users/${user.id}/personal_access_tokens`, { name: 'laptop', scopes: ['api'], expires_at: EXPIRES });
  await made(sandbox, `/users/${user.id}/impersonation_tokens`, { name: 'support-session', scopes: ['read_api'], expires_at: EXPIRES });
  await made(sandbox, `/users/${user.id}/keys`, { title: `${username}@laptop`, key: sshPublicKey(`${username}@laptop`) });
  await made(sandbox, `/users/${user.id}/gpg_keys`, { key: GPG_KEY.replace('testkey', username) });
  return user;
}

/** What the user can still reach or use: memberships, active tokens, keys, and the state. */
export async function leftOf(sandbox: SandboxApi, id: number) {
  const get = async (path: string) => (await sandbox.call('GET', path)).body;
  return {
    state: (await get(`/users/${id}`)).state,
    memberships: await get(`/users/${id}/memberships`),
    tokens: await get(`/personal_access_tokens?user_id=${id}&state=active`),
    impersonation: await get(`/users/${id}/impersonation_tokens?state=active`),
    ssh: await get(`/users/${id}/keys`),
    gpg: await get(`/users/${id}/gpg_keys`),
  };
}

export const OFFBOARDED = { state: 'blocked', memberships: [], tokens: [], impersonation: [], ssh: [], gpg: [] };

