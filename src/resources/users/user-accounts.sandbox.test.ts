import { beforeAll, describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';
import { SEED_KEYS } from '../keys/sandbox.js';

const sandbox = useTestSandbox();
let bob: string;
beforeAll(() => {
  bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
});

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);
const NEW_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG0ZWpc8CKO/eOmEFwrlLjjyRmSvZ5NEwmjlvZlVY2Dk new@host';

describe('sandbox: administering users', () => {
  let id: number;

  it('creates a user (201, the administrator\'s view), refuses taken names and weak input', async () => {
    const created = await call('POST', '/users', { email: 'carol@example.com', username: 'carol', name: 'Carol', password: 'long-enough-pw', bio: 'ops', external: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: 'carol', email: 'carol@example.com', bio: 'ops', external: true, state: 'active', is_admin: false, created_by: { username: 'root' } });
    id = created.body.id;
    expect(await call('POST', '/users', { email: 'x@example.com', username: 'carol', name: 'X', password: 'long-enough-pw' })).toEqual({ status: 409, body: { message: 'Username has already been taken' } });
    expect(await call('POST', '/users', { email: 'carol@example.com', username: 'x', name: 'X', password: 'long-enough-pw' })).toEqual({ status: 409, body: { message: 'Email has already been taken' } });
    expect(await call('POST', '/users', { email: 'y@example.com', username: 'y', name: 'Y', password: 'short' })).toEqual({ status: 400, body: { message: { password: ['is too short (minimum is 8 characters)'] } } });
    expect((await call('POST', '/users', { email: 'y@example.com', username: 'y', name: 'Y' })).body.error).toMatch(/at least one parameter must be provided/);
    expect((await call('POST', '/users', { email: 'z@example.com', username: 'z', name: 'Z', password: 'long-enough-pw' }, bob)).status).toBe(403);
    expect((await call('GET', '/users?username=carol')).body[0].email).toBe('carol@example.com');
  });

  it('updates profile fields and identities, and removes an identity', async () => {
    const updated = await call('PUT', `/users/${id}`, { bio: 'platform team', provider: 'ldapmain', extern_uid: 'uid=carol', projects_limit: 5 });
    expect(updated.body).toMatchObject({ bio: 'platform team', projects_limit: 5, identities: [{ provider: 'ldapmain', extern_uid: 'uid=carol', saml_provider_id: null }] });
    expect((await call('DELETE', `/users/${id}/identities/ldapmain`)).status).toBe(204);
    expect((await call('GET', `/users/${id}`)).body.identities).toEqual([]);
  });

  it('blocks and unblocks with the service\'s answers (true, then null or false when nothing changes)', async () => {
    expect(await call('POST', `/users/${id}/block`)).toEqual({ status: 201, body: true });
    expect(await call('POST', `/users/${id}/block`)).toEqual({ status: 201, body: null });
    expect((await call('GET', '/users?blocked=true')).body.map((u: { username: string }) => u.username)).toEqual(['carol']);
    expect(await call('POST', `/users/${id}/unblock`)).toEqual({ status: 201, body: true });
    expect(await call('POST', `/users/${id}/unblock`)).toEqual({ status: 201, body: false });
    expect(await call('POST', `/users/${id}/ban`)).toEqual({ status: 201, body: true });
    expect((await call('GET', `/users/${id}`)).body.state).toBe('banned');
    expect(await call('POST', `/users/${id}/unban`)).toEqual({ status: 201, body: true });
    expect((await call('POST', '/users/1/block')).status).toBe(403); // yourself
  });

  it('keeps secondary emails of the caller and, for administrators, of anyone', async () => {
    const mine = await call('POST', '/user/emails', { email: 'root-alt@example.com' });
    expect(mine).toMatchObject({ status: 201, body: { email: 'root-alt@example.com', confirmed_at: null } });
    expect((await call('GET', '/user/emails')).body.map((e: { email: string }) => e.email)).toEqual(['root-alt@example.com']);
    expect(await call('POST', '/user/emails', { email: 'alice@example.com' })).toEqual({ status: 400, body: { message: { email: ['has already been taken'] } } });
    expect((await call('POST', `/users/${id}/emails`, { email: 'carol2@example.com', skip_confirmation: true })).body.confirmed_at).not.toBeNull();
    expect((await call('GET', `/users/${id}/emails`)).body).toHaveLength(1);
    expect((await call('DELETE', `/user/emails/${mine.body.id}`)).status).toBe(204);
    expect((await call('GET', `/users/${id}/emails`, undefined, bob)).status).toBe(403);
  });

  it('adds SSH keys for the caller and for others, finds them by fingerprint, refuses bad and taken keys', async () => {
    const key = await call('POST', '/user/keys', { title: 'laptop', key: NEW_KEY });
    expect(key).toMatchObject({ status: 201, body: { title: 'laptop', key: NEW_KEY, usage_type: 'auth_and_signing', expires_at: null } });
    expect((await call('GET', '/user/keys')).body.map((k: { title: string }) => k.title)).toEqual(['laptop']);
    expect((await call('GET', `/keys/${key.body.id}`)).body.user.username).toBe('root');
    expect(await call('POST', `/users/${id}/keys`, { title: 'dup', key: NEW_KEY })).toEqual({ status: 400, body: { message: { key: ['has already been taken'], fingerprint_sha256: ['has already been taken'] } } });
    expect((await call('POST', '/user/keys', { title: 'bad', key: 'ssh-rsa nope' })).body).toEqual({ message: { key: ['is invalid'], fingerprint_sha256: ['cannot be generated'] } });
    expect((await call('GET', '/users/alice/keys', undefined, bob)).body.map((k: { key: string }) => k.key)).toEqual([SEED_KEYS.aliceEd25519, SEED_KEYS.aliceRsa]);
    expect((await call('DELETE', `/user/keys/${key.body.id}`)).status).toBe(204);
    expect((await call('GET', `/user/keys/${key.body.id}`)).status).toBe(404);
  });

  it('deletes a user with their memberships and tokens (204)', async () => {
    await call('POST', '/groups/acme/members', { user_id: id, access_level: 30 });
    expect((await call('DELETE', `/users/${id}`)).status).toBe(204);
    expect((await call('GET', `/users/${id}`)).status).toBe(404);
    expect((await call('GET', '/groups/acme/members')).body.map((m: { id: number }) => m.id)).not.toContain(id);
  });

  it('serves an uploaded avatar where avatar_url points', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ email: 'dan@example.com', username: 'dan', name: 'Dan', password: 'long-enough-pw' })) form.append(k, v);
    form.append('avatar', new Blob([Buffer.from('PNGDATA')], { type: 'image/png' }), 'avatar.png');
    const response = await fetch(`${sandbox.url}/users`, { method: 'POST', headers: { 'PRIVATE-TOKEN': sandbox.adminToken }, body: form });
    const user = (await response.json()) as { avatar_url: string };
    const avatar = await fetch(user.avatar_url);
    expect(avatar.status).toBe(200);
    expect(Buffer.from(await avatar.arrayBuffer()).toString()).toBe('PNGDATA');
  });
});

describe('sandbox: /metadata and feature flags', () => {
  it('answers the version and kas details', async () => {
    expect((await call('GET', '/metadata')).body).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), enterprise: true, kas: { enabled: false } });
  });

  it('sets flags on, as a percentage or for actors, lists and deletes them (administrators)', async () => {
    expect((await call('POST', '/features/approval_group_rules', { value: true })).body).toMatchObject({
      name: 'approval_group_rules', state: 'on', gates: [{ key: 'boolean', value: true }], definition: { type: 'beta', default_enabled: false },
    });
    expect((await call('POST', '/features/foo', { value: 30 })).body).toEqual({ name: 'foo', state: 'conditional', gates: [{ key: 'boolean', value: false }, { key: 'percentage_of_time', value: 30 }], definition: null });
    expect((await call('POST', '/features/bar', { value: 'true', user: 'alice' })).body.gates).toEqual([{ key: 'boolean', value: false }, { key: 'actors', value: ['User:2'] }]);
    expect((await call('GET', '/features')).body.map((f: { name: string }) => f.name)).toEqual(['approval_group_rules', 'foo', 'bar']);
    expect((await call('DELETE', '/features/foo')).status).toBe(204);
    expect((await call('GET', '/features', undefined, bob)).status).toBe(403);
    expect((await call('POST', '/features/x', { value: 'maybe' })).status).toBe(400);
  });
});
