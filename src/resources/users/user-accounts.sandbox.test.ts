import { beforeAll, describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens, users } from '../../sandbox/model.js';
import { addUser } from '../../sandbox/seed.js';
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

/**
 * The user states and the moderation routes as the service moves them (its users API and the user model's state
 * machine): what each route answers from each state, and the state after. Banned and pending users count as blocked.
 */
describe('sandbox: user states and their transitions', () => {
  type State = 'active' | 'blocked' | 'ldap_blocked' | 'deactivated' | 'banned' | 'blocked_pending_approval';
  const STATES: State[] = ['active', 'blocked', 'ldap_blocked', 'deactivated', 'banned', 'blocked_pending_approval'];
  const forbidden = (reason: string) => ({ status: 403, body: { message: `403 Forbidden - ${reason}` } });
  const refused = (status: number, message: string) => ({ status, body: { message } });
  const blockedCannot = refused(403, 'Error occurred. A blocked user cannot be deactivated');
  const mustUnblock = forbidden('A blocked user must be unblocked to be activated');
  const notPending = refused(409, 'The user you are trying to approve is not pending approval');
  const noRequest = refused(409, 'User does not have a pending request');
  /** For each route, from each state: the answer, and the state after (unchanged when a refusal). */
  const TABLE: Record<string, Record<State, [unknown, State | 'deleted']>> = {
    block: {
      active: [{ status: 201, body: true }, 'blocked'],
      blocked: [{ status: 201, body: null }, 'blocked'],
      ldap_blocked: [forbidden('LDAP blocked users cannot be modified by the API'), 'ldap_blocked'],
      deactivated: [{ status: 201, body: true }, 'blocked'],
      banned: [{ status: 201, body: null }, 'banned'],
      blocked_pending_approval: [{ status: 201, body: null }, 'blocked_pending_approval'],
    },
    unblock: {
      active: [{ status: 201, body: false }, 'active'],
      blocked: [{ status: 201, body: true }, 'active'],
      ldap_blocked: [forbidden('LDAP blocked users cannot be unblocked by the API'), 'ldap_blocked'],
      deactivated: [forbidden('Deactivated users cannot be unblocked by the API'), 'deactivated'],
      banned: [{ status: 201, body: true }, 'active'],
      blocked_pending_approval: [{ status: 201, body: true }, 'active'],
    },
    deactivate: {
      active: [{ status: 201, body: true }, 'deactivated'],
      blocked: [blockedCannot, 'blocked'],
      ldap_blocked: [blockedCannot, 'ldap_blocked'],
      deactivated: [{ status: 201, body: null }, 'deactivated'],
      banned: [blockedCannot, 'banned'],
      blocked_pending_approval: [blockedCannot, 'blocked_pending_approval'],
    },
    activate: {
      active: [{ status: 201, body: false }, 'active'],
      blocked: [mustUnblock, 'blocked'],
      ldap_blocked: [mustUnblock, 'ldap_blocked'],
      deactivated: [{ status: 201, body: true }, 'active'],
      banned: [mustUnblock, 'banned'],
      blocked_pending_approval: [mustUnblock, 'blocked_pending_approval'],
    },
    ban: {
      active: [{ status: 201, body: true }, 'banned'],
      blocked: [refused(403, 'You cannot ban blocked users.'), 'blocked'],
      ldap_blocked: [refused(403, 'You cannot ban ldap_blocked users.'), 'ldap_blocked'],
      deactivated: [refused(403, 'You cannot ban deactivated users.'), 'deactivated'],
      banned: [refused(403, 'You cannot ban banned users.'), 'banned'],
      blocked_pending_approval: [refused(403, 'You cannot ban blocked_pending_approval users.'), 'blocked_pending_approval'],
    },
    unban: {
      active: [refused(403, 'You cannot unban active users.'), 'active'],
      blocked: [refused(403, 'You cannot unban blocked users.'), 'blocked'],
      ldap_blocked: [refused(403, 'You cannot unban ldap_blocked users.'), 'ldap_blocked'],
      deactivated: [refused(403, 'You cannot unban deactivated users.'), 'deactivated'],
      banned: [{ status: 201, body: true }, 'active'],
      blocked_pending_approval: [refused(403, 'You cannot unban blocked_pending_approval users.'), 'blocked_pending_approval'],
    },
    approve: {
      active: [notPending, 'active'],
      blocked: [notPending, 'blocked'],
      ldap_blocked: [notPending, 'ldap_blocked'],
      deactivated: [notPending, 'deactivated'],
      banned: [notPending, 'banned'],
      blocked_pending_approval: [{ status: 201, body: { message: 'Success' } }, 'active'],
    },
    reject: {
      active: [noRequest, 'active'],
      blocked: [noRequest, 'blocked'],
      ldap_blocked: [noRequest, 'ldap_blocked'],
      deactivated: [noRequest, 'deactivated'],
      banned: [noRequest, 'banned'],
      blocked_pending_approval: [{ status: 200, body: { message: 'Success' } }, 'deleted'],
    },
  };

  const rows = Object.entries(TABLE).flatMap(([route, from]) => STATES.map((state) => [route, state, ...from[state]] as const));
  it.each(rows)('%s from %s', async (route, state, answer, after) => {
    const user = (await call('POST', '/users', { email: `${route}-${state}@example.com`, username: `${route}-${state}`, name: 'Moderated', password: 'long-enough-pw' })).body;
    users(sandbox.db).find((u) => u.id === user.id)!.state = state;
    expect(await call('POST', `/users/${user.id}/${route}`)).toEqual(answer);
    const now = await call('GET', `/users/${user.id}`);
    expect(after === 'deleted' ? now.status : now.body.state).toBe(after === 'deleted' ? 404 : after);
  });

  it('deactivates only dormant users, never the caller; internal users are neither blocked nor deactivated', async () => {
    const user = (await call('POST', '/users', { email: 'recent@example.com', username: 'recent', name: 'Recent', password: 'long-enough-pw' })).body;
    users(sandbox.db).find((u) => u.id === user.id)!.last_activity_on = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const recently = refused(403, 'The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated');
    expect(await call('POST', `/users/${user.id}/deactivate`)).toEqual(recently);
    expect(await call('POST', '/users/1/deactivate')).toEqual(recently);
    users(sandbox.db).find((u) => u.id === user.id)!.last_activity_on = new Date(Date.now() - 91 * 86_400_000).toISOString().slice(0, 10);
    expect(await call('POST', `/users/${user.id}/deactivate`)).toEqual({ status: 201, body: true });
    const ghost = users(sandbox.db).find((u) => u.user_type === 'ghost') ?? addUser(sandbox.db, { username: 'ghost', user_type: 'ghost' }, new Date());
    expect(await call('POST', `/users/${ghost.id}/block`)).toEqual(refused(403, 'An internal user cannot be blocked'));
    expect(await call('POST', `/users/${ghost.id}/deactivate`)).toEqual(refused(403, 'Internal users cannot be deactivated'));
    expect((await call('POST', `/users/${user.id}/block`, undefined, bob)).status).toBe(403);
    expect((await call('POST', '/users/999999/block')).body).toEqual({ message: '404 User Not Found' });
  });

  it('records the day a user used the API, after a request that succeeded, and then does not deactivate them', async () => {
    const dana = (await call('POST', '/users', { email: 'dana@example.com', username: 'dana-api', name: 'Dana', password: 'long-enough-pw' })).body;
    const token = (await call('POST', `/users/${dana.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token;
    const record = users(sandbox.db).find((u) => u.id === dana.id)!;
    const longAgo = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
    record.last_activity_on = longAgo;
    expect((await call('GET', '/projects/no%2Fsuch', undefined, token)).status).toBe(404);
    expect(record.last_activity_on).toBe(longAgo);
    expect((await call('GET', '/user', undefined, token)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect((await call('GET', `/users/${dana.id}`)).body.last_activity_on).toBe(today);
    expect(await call('POST', `/users/${dana.id}/deactivate`)).toEqual(refused(403, 'The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated'));
  });

  it('refuses to delete the only owner of a group (409) unless hard_delete, which deletes the group too', async () => {
    const owner = (await call('POST', '/users', { email: 'owner@example.com', username: 'lone-owner', name: 'Lone', password: 'long-enough-pw' })).body;
    const token = (await call('POST', `/users/${owner.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token;
    const group = (await call('POST', '/groups', { name: 'Lone', path: 'lone' }, token)).body;
    expect(await call('DELETE', `/users/${owner.id}`)).toEqual(refused(409, 'User cannot be removed while is the sole-owner of a group'));
    expect((await call('DELETE', `/users/${owner.id}?hard_delete=true`)).status).toBe(204);
    expect((await call('GET', `/groups/${group.id}`)).status).toBe(404);
  });
});
