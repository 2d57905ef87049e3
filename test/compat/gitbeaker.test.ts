import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

// Contract §10: existing third-party clients of the real service work against the sandbox unchanged.
// gitbeaker is one of the two clients api-facts.md draws on.
const sandbox = useTestSandbox({ users: 120 });
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  api = new Gitlab({ host: sandbox.rootUrl, token: sandbox.adminToken });
});

describe('a third-party client (gitbeaker) against the sandbox', () => {
  it('reads the current user, a project by path and every page of users', async () => {
    expect((await api.Users.showCurrentUser()).username).toBe('root');
    expect((await api.Projects.show('acme/api')).path_with_namespace).toBe('acme/api');
    const all = await api.Users.all({ perPage: 50 });
    expect(all.length).toBeGreaterThanOrEqual(123);
    expect(new Set(all.map((u) => u.id)).size).toBe(all.length);
  });

  it('creates and rotates a group access token, and the rotated token is revoked', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const created = await api.GroupAccessTokens.create('acme', 'compat-bot', ['api'], expiresAt, { accessLevel: 40 });
    expect(created.token).toBeTruthy();
    const rotated = await api.GroupAccessTokens.rotate('acme', created.id);
    expect(rotated.token).toBeTruthy();
    expect(rotated.token).not.toBe(created.token);
    const old = new Gitlab({ host: sandbox.rootUrl, token: created.token! });
    await expect(old.Users.showCurrentUser()).rejects.toThrow();
  });

  it('manages badges, protected tags and freeze periods', async () => {
    const badge = await api.ProjectBadges.add('acme/api', 'https://ci.example.com/%{project_path}', 'https://ci.example.com/b.svg', { name: 'compat' });
    expect(badge.rendered_link_url).toBe('https://ci.example.com/acme/api');
    await api.ProtectedTags.protect('acme/api', 'compat-*');
    expect((await api.ProtectedTags.all('acme/api')).map((t) => t.name)).toContain('compat-*');
    const period = await api.FreezePeriods.create('acme/api', '0 23 * * 5', '0 7 * * 1');
    expect(period.cron_timezone).toBe('UTC');
  });

  it('approves a merge request and reads the application settings', async () => {
    const approved = await api.MergeRequestApprovals.approve('acme/api', 1);
    const approvedBy = approved.approved_by as Array<{ user: { username: string } }>;
    expect(approvedBy.map((a) => a.user.username)).toContain('root');
    const settings = await api.ApplicationSettings.show();
    expect(typeof settings.signup_enabled).toBe('boolean');
  });
});
