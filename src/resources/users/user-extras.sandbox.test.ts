import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const GPG = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ0Xb3RYJKwYBBAHaRw8BAQdAsandboxkeyAAAA\n=abcd\n-----END PGP PUBLIC KEY BLOCK-----';

describe('users: impersonation tokens, GPG keys and status, as the service answers', () => {
  it('creates an impersonation token that acts as the user, lists it by state, and revokes it (administrators only)', async () => {
    const created = await sandbox.call('POST', '/users/2/impersonation_tokens', { name: 'support', scopes: ['api'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'support', scopes: ['api'], user_id: 2, impersonation: true, active: true, revoked: false });
    expect(created.body.token).toMatch(/^glpat-/);
    const me = await sandbox.call('GET', '/user', undefined, created.body.token);
    expect(me.body.username).toBe('alice');
    const got = await sandbox.call('GET', `/users/2/impersonation_tokens/${created.body.id}`);
    expect(got.body.token).toBeUndefined();
    expect((await sandbox.call('DELETE', `/users/2/impersonation_tokens/${created.body.id}`)).status).toBe(204);
    expect((await sandbox.call('GET', '/users/2/impersonation_tokens?state=inactive')).body.map((t: { id: number }) => t.id)).toEqual([created.body.id]);
    expect((await sandbox.call('GET', '/users/2/impersonation_tokens?state=active')).body).toEqual([]);
    expect((await sandbox.call('GET', '/user', undefined, created.body.token)).status).toBe(401);
    expect(await sandbox.call('POST', '/users/2/impersonation_tokens', { name: 'x' })).toEqual({ status: 400, body: { error: 'scopes is missing' } });
    expect(await sandbox.call('GET', '/users/2/impersonation_tokens/999')).toEqual({ status: 404, body: { message: '404 Impersonation Token Not Found' } });
    expect((await sandbox.call('GET', '/users/2/impersonation_tokens', undefined, sandbox.tokenWithRole('owner'))).status).toBe(403);
  });

  it('adds, lists and deletes GPG keys; anyone\'s are public', async () => {
    const added = await sandbox.call('POST', '/user/gpg_keys', { key: GPG });
    expect(added.status).toBe(201);
    expect(Object.keys(added.body)).toEqual(['id', 'key', 'created_at']);
    expect((await sandbox.call('POST', '/user/gpg_keys', { key: GPG })).status).toBe(400);
    expect(await sandbox.call('POST', '/user/gpg_keys', { key: 'nope' })).toEqual({ status: 400, body: { message: { key: ['does not appear to be a valid PGP public key'] } } });
    const anyone = await fetch(`${sandbox.url}/users/1/gpg_keys`);
    expect((await anyone.json()).map((k: { id: number }) => k.id)).toEqual([added.body.id]);
    expect((await sandbox.call('DELETE', `/user/gpg_keys/${added.body.id}`)).status).toBe(204);
    expect(await sandbox.call('GET', `/user/gpg_keys/${added.body.id}`)).toEqual({ status: 404, body: { message: '404 GPG Key Not Found' } });
  });

  it('sets the user status with PUT (what is left out is cleared) and shows it to others', async () => {
    const set = await sandbox.call('PUT', '/user/status', { emoji: 'coffee', message: 'on a break', availability: 'busy', clear_status_after: '30_minutes' });
    expect(set.status).toBe(200);
    expect(Object.keys(set.body)).toEqual(['emoji', 'availability', 'message', 'message_html', 'clear_status_at']);
    expect(set.body).toMatchObject({ emoji: 'coffee', message: 'on a break', availability: 'busy', message_html: '<p>on a break</p>' });
    expect((await fetch(`${sandbox.url}/users/root/status`).then((r) => r.json()))).toEqual(set.body);
    const replaced = await sandbox.call('PUT', '/user/status', { message: 'back' });
    expect(replaced.body).toMatchObject({ emoji: 'speech_balloon', message: 'back', availability: 'not_set', clear_status_at: null });
    expect((await sandbox.call('PUT', '/user/status', { availability: 'away' })).body).toEqual({ error: 'availability does not have a valid value' });
  });
});

describe('tokens create --impersonation', () => {
  it('creates an impersonation token for a user; --impersonation without --personal exits 2 sending nothing', async () => {
    const created = await sandbox.run(['tokens', 'create', '--personal', '--user', '3', '--impersonation', '--name', 'support', '--scopes', 'read_api', '--expires-in', '1d', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ name: 'support', user_id: 3, impersonation: true, scopes: ['read_api'] });
    expect((await sandbox.call('GET', '/users/3/impersonation_tokens')).body.map((t: { name: string }) => t.name)).toEqual(['support']);
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'create', '--group', 'acme', '--impersonation', '--name', 'x', '--scopes', 'api']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--impersonation goes with --personal');
    expect(sandbox.requests()).toEqual([]);
  });
});
