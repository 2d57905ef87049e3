import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox, type TestSandbox } from '../../../test/helpers/cli.js';
import { presentedFields } from '../../api/resource.js';
import { groups, members, tokens, users } from '../../sandbox/model.js';
import { serviceAccounts } from './resource.js';

/**
 * The sandbox's service accounts against the service's Service accounts API: the records as documented, what is
 * generated when not given, who may do what, the errors' bodies, and the tokens of a group's accounts with the
 * rotation of every other token (reuse detection included).
 */
const sandbox = useTestSandbox();
const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
/** The documented fields of a service account; unconfirmed_email only while there is one. */
const ACCOUNT_KEYS = presentedFields(serviceAccounts).map(([name]) => name).filter((name) => name !== 'unconfirmed_email');
const TOKEN_KEYS = ['id', 'name', 'revoked', 'created_at', 'description', 'scopes', 'user_id', 'last_used_at', 'active', 'expires_at'];

describe('instance service accounts (administrators)', () => {
  it('creates one with the generated username, name and no-reply email the documents show (201)', async () => {
    const made = await sandbox.call('POST', '/service_accounts');
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual(ACCOUNT_KEYS);
    expect(made.body.username).toMatch(/^service_account_[0-9a-f]{32}$/);
    expect(made.body).toMatchObject({ name: 'Service account user', email: `${made.body.username}@noreply.127.0.0.1` });
    expect(users(sandbox.db).find((u) => u.id === made.body.id)).toMatchObject({ user_type: 'service_account', bot: true });
  });

  it('takes a username, a name and an email; a taken one is refused with the model\'s sentence (400)', async () => {
    const made = await sandbox.call('POST', '/service_accounts', { username: 'svc-build', name: 'Build bot', email: 'build-bot@example.com' });
    expect(made.body).toMatchObject({ username: 'svc-build', name: 'Build bot', email: 'build-bot@example.com' });
    const again = await sandbox.call('POST', '/service_accounts', { username: 'SVC-build', email: 'build-bot@example.com' });
    expect(again).toEqual({ status: 400, body: { message: '400 Bad request - Username has already been taken and Email has already been taken' } });
    expect((await sandbox.call('POST', '/service_accounts', { username: '-bad' })).status).toBe(400);
  });

  it('lists only the instance\'s, ordered by id or username, newest first unless asc', async () => {
    await sandbox.call('POST', '/service_accounts', { username: 'svc-aaa' });
    const listed = await sandbox.call('GET', '/service_accounts?order_by=username&sort=asc&per_page=100');
    expect(listed.status).toBe(200);
    const names = listed.body.map((a: { username: string }) => a.username);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('service_account_deploy');
    const byId = (await sandbox.call('GET', '/service_accounts?per_page=100')).body.map((a: { id: number }) => a.id);
    expect(byId).toEqual([...byId].sort((a: number, b: number) => b - a));
    expect((await sandbox.call('GET', '/service_accounts?order_by=name')).body).toEqual({ error: 'order_by does not have a valid value' });
  });

  it('is for administrators: others get 403, nobody gets 401', async () => {
    expect((await sandbox.call('GET', '/service_accounts', undefined, sandbox.tokenWithRole('owner'))).status).toBe(403);
    expect((await sandbox.call('POST', '/service_accounts', {}, sandbox.tokenWithRole('owner'))).status).toBe(403);
    expect((await fetch(`${sandbox.url}/service_accounts`)).status).toBe(401);
  });

  it('updates the name, username and email (PATCH); 404 for no user, 400 for a user who is no service account', async () => {
    const made = (await sandbox.call('POST', '/service_accounts', { username: 'svc-rename' })).body;
    const changed = await sandbox.call('PATCH', `/service_accounts/${made.id}`, { name: 'Renamed', username: 'svc-renamed' });
    expect(changed).toEqual({ status: 200, body: { ...made, name: 'Renamed', username: 'svc-renamed' } });
    expect((await sandbox.call('PATCH', '/service_accounts/999999', { name: 'x' })).body).toEqual({ message: '404 User Not Found' });
    const alice = users(sandbox.db).find((u) => u.username === 'alice')!;
    expect(await sandbox.call('PATCH', `/service_accounts/${alice.id}`, { name: 'x' })).toEqual({ status: 400, body: { message: 'User is not of type Service Account' } });
  });

  it('gets personal tokens from an administrator, rotated with reuse detection like anyone\'s; deleted as a user, with its tokens', async () => {
    const account = (await sandbox.call('POST', '/service_accounts', { username: 'svc-rotating' })).body;
    const token = (await sandbox.call('POST', `/users/${account.id}/personal_access_tokens`, { name: 'cron', scopes: ['api'], expires_at: day(30) })).body;
    expect(Object.keys(token)).toEqual([...TOKEN_KEYS, 'token']);
    const listed = await sandbox.call('GET', `/personal_access_tokens?user_id=${account.id}`);
    expect(listed.body.map((t: { id: number }) => t.id)).toEqual([token.id]);
    const rotated = await sandbox.call('POST', `/personal_access_tokens/${token.id}/rotate`, { expires_at: day(20) });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ name: 'cron', user_id: account.id, expires_at: day(20) });
    // The old token presented to rotate again: the family is revoked.
    expect((await sandbox.call('POST', '/personal_access_tokens/self/rotate', {}, token.token)).status).toBe(401);
    expect((await sandbox.call('GET', '/personal_access_tokens/self', undefined, rotated.body.token)).status).toBe(401);

    // One that alone owns a group is kept (409) unless hard_delete, as the users API answers.
    const group = (await sandbox.call('POST', '/groups', { name: 'Rotating', path: 'rotating-space' })).body;
    members(sandbox.db).push({ source_type: 'group', source_id: group.id, user_id: account.id, access_level: 50 });
    members(sandbox.db).splice(0, members(sandbox.db).length, ...members(sandbox.db).filter((m) => !(m.source_type === 'group' && m.source_id === group.id && m.user_id !== account.id)));
    expect(await sandbox.call('DELETE', `/users/${account.id}`)).toEqual({ status: 409, body: { message: 'User cannot be removed while is the sole-owner of a group' } });
    expect(users(sandbox.db).some((u) => u.id === account.id)).toBe(true);
    expect((await sandbox.call('DELETE', `/users/${account.id}?hard_delete=true`)).status).toBe(204);
    expect(groups(sandbox.db).some((g) => g.id === group.id)).toBe(false);
    expect(users(sandbox.db).some((u) => u.id === account.id)).toBe(false);
    expect(tokens(sandbox.db).some((t) => t.user_id === account.id)).toBe(false);
  });
});

describe('group service accounts (Owners of a top-level group)', () => {
  it('creates one provisioned by the group, with the group\'s prefix; a subgroup is refused (400)', async () => {
    const made = await sandbox.call('POST', '/groups/acme/service_accounts', {}, sandbox.tokenWithRole('owner'));
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual(ACCOUNT_KEYS);
    expect(made.body.username).toMatch(/^service_account_group_1_[0-9a-f]{32}$/);
    expect(users(sandbox.db).find((u) => u.id === made.body.id)).toMatchObject({ provisioned_by_group_id: 1, user_type: 'service_account' });
    const acme = groups(sandbox.db).find((g) => g.full_path === 'acme')!;
    const sub = await sandbox.call('POST', '/groups', { name: 'Sub', path: 'sub', parent_id: acme.id });
    expect((await sandbox.call('POST', `/groups/${sub.body.id}/service_accounts`)).body).toEqual({ message: '400 Bad request - User does not have permission to create a service account in this namespace.' });
  });

  it('is for the group\'s Owners: a Maintainer gets 403, a group nobody sees 404', async () => {
    expect((await sandbox.call('GET', '/groups/acme/service_accounts', undefined, sandbox.tokenWithRole('maintainer'))).status).toBe(403);
    expect((await sandbox.call('GET', '/groups/nowhere/service_accounts')).body).toEqual({ message: '404 Group Not Found' });
  });

  it('lists, updates and deletes only the group\'s accounts (404 User Not Found for another\'s)', async () => {
    const mine = (await sandbox.call('POST', '/groups/acme/service_accounts', { username: 'acme-release', name: 'Release' })).body;
    const instance = (await sandbox.call('POST', '/service_accounts', { username: 'svc-elsewhere' })).body;
    const listed = (await sandbox.call('GET', '/groups/acme/service_accounts?per_page=100')).body.map((a: { username: string }) => a.username);
    expect(listed).toContain('acme-release');
    expect(listed).not.toContain('svc-elsewhere');
    expect((await sandbox.call('PATCH', `/groups/acme/service_accounts/${mine.id}`, { name: 'Releases' })).body).toMatchObject({ id: mine.id, name: 'Releases' });
    expect((await sandbox.call('PATCH', `/groups/acme/service_accounts/${instance.id}`, { name: 'x' })).body).toEqual({ message: '404 User Not Found' });
    expect((await sandbox.call('PATCH', `/groups/acme/service_accounts/${mine.id}`, { username: 'alice' })).body).toEqual({ message: 'Username has already been taken' });
    expect((await sandbox.call('DELETE', `/groups/acme/service_accounts/${instance.id}`)).status).toBe(404);
    expect((await sandbox.call('DELETE', `/groups/acme/service_accounts/${mine.id}`)).status).toBe(204);
    expect(users(sandbox.db).some((u) => u.id === mine.id)).toBe(false);
  });

  it('keeps an account that alone owns a group unless hard_delete (409), which deletes that group too', async () => {
    const owner = (await sandbox.call('POST', '/groups/acme/service_accounts', { username: 'acme-owner-bot' })).body;
    const group = (await sandbox.call('POST', '/groups', { name: 'Bot space', path: 'bot-space' })).body;
    members(sandbox.db).splice(0, members(sandbox.db).length, ...members(sandbox.db).filter((m) => !(m.source_type === 'group' && m.source_id === group.id)));
    members(sandbox.db).push({ source_type: 'group', source_id: group.id, user_id: owner.id, access_level: 50 });
    expect(await sandbox.call('DELETE', `/groups/acme/service_accounts/${owner.id}`)).toEqual({ status: 409, body: { message: 'User cannot be removed while is the sole-owner of a group' } });
    expect((await sandbox.call('DELETE', `/groups/acme/service_accounts/${owner.id}?hard_delete=true`)).status).toBe(204);
    expect(groups(sandbox.db).some((g) => g.id === group.id)).toBe(false);
  });

  it('its tokens: created (201, the value once), listed with the filters of every token list, revoked (204, then 400)', async () => {
    const account = (await sandbox.call('POST', '/groups/acme/service_accounts', { username: 'acme-tokens' })).body;
    const base = `/groups/acme/service_accounts/${account.id}/personal_access_tokens`;
    const made = await sandbox.call('POST', base, { name: 'deploy', scopes: ['api', 'read_user'], expires_at: day(40) });
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([...TOKEN_KEYS, 'token']);
    expect(made.body).toMatchObject({ name: 'deploy', scopes: ['api', 'read_user'], user_id: account.id, active: true, revoked: false, expires_at: day(40) });
    const defaulted = (await sandbox.call('POST', base, { name: 'long', scopes: ['read_api'] })).body;
    expect(defaulted.expires_at).toBe(day(365));
    expect((await sandbox.call('POST', base, { name: 'x' })).body).toEqual({ error: 'scopes is missing' });
    const listed = await sandbox.call('GET', `${base}?search=dep&state=active`);
    expect(listed.body.map((t: { id: number }) => t.id)).toEqual([made.body.id]);
    expect(Object.keys(listed.body[0])).toEqual(TOKEN_KEYS);
    expect((await sandbox.call('DELETE', `${base}/${made.body.id}`)).status).toBe(204);
    expect((await sandbox.call('DELETE', `${base}/${made.body.id}`)).body).toEqual({ message: '400 Bad request - Token already revoked' });
    expect((await sandbox.call('DELETE', `${base}/999999`)).body).toEqual({ message: '404 Personal Access Token Not Found' });
  });

  it('rotates a token (200, a week unless expires_at); a revoked one again is 400 and revokes its family', async () => {
    const account = (await sandbox.call('POST', '/groups/acme/service_accounts', { username: 'acme-rotating' })).body;
    const base = `/groups/acme/service_accounts/${account.id}/personal_access_tokens`;
    const first = (await sandbox.call('POST', base, { name: 'cron', scopes: ['api'], expires_at: day(60) })).body;
    const second = await sandbox.call('POST', `${base}/${first.id}/rotate`);
    expect(second.status).toBe(200);
    expect(Object.keys(second.body)).toEqual([...TOKEN_KEYS, 'token']);
    expect(second.body).toMatchObject({ name: 'cron', expires_at: day(7), active: true });
    const third = (await sandbox.call('POST', `${base}/${second.body.id}/rotate`, { expires_at: day(30) })).body;
    expect(third.expires_at).toBe(day(30));
    expect(await sandbox.call('POST', `${base}/${first.id}/rotate`)).toEqual({ status: 400, body: { message: '400 Bad request - Token already revoked' } });
    expect(tokens(sandbox.db).find((t) => t.id === third.id)).toMatchObject({ revoked: true, active: false });
    expect((await sandbox.call('POST', `${base}/999999/rotate`)).status).toBe(404);
  });

  it('is for Owners; a user the group did not provision is 404, one who is no service account 400', async () => {
    const account = (await sandbox.call('POST', '/groups/acme/service_accounts', { username: 'acme-guarded' })).body;
    expect((await sandbox.call('GET', `/groups/acme/service_accounts/${account.id}/personal_access_tokens`, undefined, sandbox.tokenWithRole('maintainer'))).status).toBe(403);
    const alice = users(sandbox.db).find((u) => u.username === 'alice')!;
    expect((await sandbox.call('GET', `/groups/acme/service_accounts/${alice.id}/personal_access_tokens`)).body).toEqual({ message: '404 User Not Found' });
    alice.provisioned_by_group_id = 1;
    try {
      expect((await sandbox.call('GET', `/groups/acme/service_accounts/${alice.id}/personal_access_tokens`)).body).toEqual({ message: '400 Bad request - User is not of type Service Account' });
    } finally {
      delete alice.provisioned_by_group_id;
    }
  });
});

describe('on the free tier there are no service accounts (403)', () => {
  let free: TestSandbox;
  beforeAll(async () => {
    free = await startTestSandbox({ tier: 'free' });
  });
  afterAll(() => free.close());

  it('neither the instance\'s nor a group\'s', async () => {
    for (const [method, path] of [['GET', '/service_accounts'], ['POST', '/service_accounts'], ['GET', '/groups/acme/service_accounts'], ['POST', '/groups/acme/service_accounts']]) {
      expect((await free.call(method, path)).status, `${method} ${path}`).toBe(403);
    }
  });
});
