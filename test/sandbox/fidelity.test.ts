import { describe, expect, it } from 'vitest';
import { type TestSandbox, useTestSandbox } from '../helpers/cli.js';
import { members, tokens, users } from '../../src/sandbox/model.js';
import { addToken, addUser } from '../../src/sandbox/seed.js';
import { SEED_KEYS } from '../../src/resources/keys/sandbox.js';
import { sshKeyTable } from '../../src/sandbox/model.js';

// Answers where the sandbox used to differ from the real service, found by running third-party clients against it.
const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);
const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);

describe('sandbox fidelity', () => {
  it('answers reset_approvals with 202 and a JSON body, as the service does (clients parse it)', async () => {
    const now = new Date();
    const bot = addUser(sandbox.db, { username: 'project_1_bot_fidelity', bot: true }, now);
    members(sandbox.db).push({ source_type: 'project', source_id: 1, user_id: bot.id, access_level: 40 });
    const token = addToken(sandbox.db, bot, { kind: 'project', resource_id: 1, name: 'fidelity-bot' }, now);
    const reset = await call('PUT', '/projects/1/merge_requests/1/reset_approvals', undefined, token.token);
    expect(reset.status).toBe(202);
    expect(reset.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(reset.text)).toBe(202);
  });

  it('protected tags: no default Maintainer level when allowed_to_create names users, and each entry once', async () => {
    const alice = users(sandbox.db).find((u) => u.username === 'alice')!;
    const byUser = await call('POST', '/projects/1/protected_tags', { name: 'u-*', allowed_to_create: [{ user_id: alice.id }, { user_id: alice.id }] });
    expect(byUser.status).toBe(201);
    expect(byUser.body.create_access_levels).toEqual([{ id: expect.any(Number), access_level: 40, access_level_description: alice.name, user_id: alice.id, group_id: null }]);
    const levels = await call('POST', '/projects/1/protected_tags', { name: 'l-*', allowed_to_create: [{ access_level: 30 }, { access_level: 30 }] });
    expect(levels.body.create_access_levels.map((a: { access_level: number }) => a.access_level)).toEqual([30]);
    // Deploy keys alone keep the default Maintainer level beside them.
    const deployKey = sshKeyTable(sandbox.db).find((k) => k.key === SEED_KEYS.deploy)!;
    const withKey = await call('POST', '/projects/1/protected_tags', { name: 'k-*', allowed_to_create: [{ deploy_key_id: deployKey.id }] });
    expect(withKey.body.create_access_levels.map((a: Record<string, unknown>) => a.deploy_key_id ?? a.access_level)).toEqual([40, deployKey.id]);
  });

  it('creates access tokens that expire today, and refuses past dates', async () => {
    const today = await call('POST', '/groups/acme/access_tokens', { name: 'today', scopes: ['api'], expires_at: day(0) });
    expect(today.status).toBe(201);
    expect(today.body.expires_at).toBe(day(0));
    // A token is valid through its expiry day.
    expect((await call('GET', '/groups/acme', undefined, today.body.token)).status).toBe(200);
    expect((await call('POST', '/projects/1/access_tokens', { name: 'past', scopes: ['api'], expires_at: day(-1) })).status).toBe(400);
    const personal = await call('POST', `/users/${users(sandbox.db).find((u) => u.username === 'bob')!.id}/personal_access_tokens`, { name: 'p', scopes: ['api'], expires_at: day(0) });
    expect(personal.status).toBe(201);
    expect(tokens(sandbox.db).find((t) => t.id === personal.body.id)!.expires_at).toBe(day(0));
  });

  it('searches groups, and project and group records carry the fields clients read', async () => {
    await call('POST', '/groups', { name: 'Platform', path: 'platform' });
    expect((await call('GET', '/groups?search=plat')).body.map((g: { full_path: string }) => g.full_path)).toEqual(['platform']);
    expect((await call('GET', '/groups?search=nothing-like-it')).body).toEqual([]);
    const group = (await call('GET', '/groups/acme')).body;
    expect(group).toMatchObject({ visibility: 'private', archived: false, marked_for_deletion_on: null, shared_with_groups: [], full_name: 'Acme', parent_id: null });
    const project = (await call('GET', '/projects/acme%2Fapi')).body;
    expect(project).toMatchObject({
      visibility: 'private', archived: false, shared_with_groups: [], marked_for_deletion_on: null, empty_repo: false,
      namespace: { id: 1, name: 'Acme', path: 'acme', kind: 'group', full_path: 'acme', parent_id: null },
    });
  });

  it('answers a method it does not implement on an existing path with 404, as the service does', async () => {
    for (const [method, path] of [['DELETE', '/version'], ['PATCH', '/projects/1'], ['POST', '/projects/1/protected_tags/release-*']]) {
      expect(await call(method, path)).toEqual({ status: 404, body: { error: '404 Not Found' } });
    }
  });

  it('serves every group integration the service lists, not only those of the spec', async () => {
    const set = await call('PUT', '/groups/acme/integrations/pipelines-email', { recipients: 'ops@example.com', notify_only_broken_pipelines: true });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ slug: 'pipelines-email', title: 'Pipeline status emails', properties: { recipients: 'ops@example.com', notify_only_broken_pipelines: true } });
    expect((await call('PUT', '/groups/acme/integrations/slack', { webhook: 'https://hooks.slack.example.com/x' })).status).toBe(200);
    expect((await call('PUT', '/groups/acme/integrations/jira', { url: 'https://jira.example.com', password: 's3cret' })).body.properties).toEqual({ url: 'https://jira.example.com' });
    const slugs = (await call('GET', '/groups/acme/integrations')).body.map((i: { slug: string }) => i.slug);
    expect(slugs).toEqual(expect.arrayContaining(['bugzilla', 'pipelines-email', 'slack', 'jira']));
    expect(await call('PUT', '/groups/acme/integrations/emails-on-push', {})).toEqual({ status: 400, body: { error: 'recipients is missing' } });
  });
});
