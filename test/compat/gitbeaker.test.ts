import { Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

// Contract §10: existing third-party clients of the real service work against the sandbox unchanged. gitbeaker over
// the resources python-gitlab's functional tests cover (test/compat/python-gitlab.test.ts): users, keys, groups,
// projects, members, access tokens, badges, push rules, protected tags, approvals and merge requests.
const sandbox = useTestSandbox({ users: 120 });
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  api = new Gitlab({ host: sandbox.rootUrl, token: sandbox.adminToken });
});

let serial = 0;
const unique = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${serial++}`;
const today = (): string => new Date().toISOString().slice(0, 10);
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOd3bRjRvmNBuo/WGYxp0Sj3MgRDiCMmHqh/q7EPgj2I gitbeaker@compat';

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

describe('gitbeaker: users, keys and emails', () => {
  it('creates, finds, blocks, unblocks and deletes a user', async () => {
    const name = unique('gb-user');
    const user = await api.Users.create({ email: `${name}@example.com`, username: name, name, password: 'Sandbox-pass-1' });
    expect((await api.Users.all({ username: name }))[0].email).toBe(`${name}@example.com`);
    await api.Users.block(user.id);
    expect((await api.Users.show(user.id)).state).toBe('blocked');
    await api.Users.unblock(user.id);
    await api.Users.edit(user.id, { bio: 'compat' });
    expect((await api.Users.show(user.id)).bio).toBe('compat');
    await api.Users.remove(user.id);
    await expect(api.Users.show(user.id)).rejects.toThrow();
  });

  it('adds SSH keys and emails for the current user and another, and finds a key by fingerprint', async () => {
    const key = await api.UserSSHKeys.create('gitbeaker', SSH_KEY);
    expect((await api.UserSSHKeys.all()).map((k) => k.id)).toContain(key.id);
    const found = await api.Keys.show({ keyId: key.id });
    expect((found.user as { username: string }).username).toBe('root');
    await api.UserSSHKeys.remove(key.id);
    const email = await api.UserEmails.create(`${unique('gb')}@example.com`, { userId: 2 });
    expect((await api.UserEmails.all({ userId: 2 })).map((e) => e.id)).toContain(email.id);
    await api.UserEmails.remove(email.id, { userId: 2 });
  });
});

describe('gitbeaker: groups, projects and members', () => {
  it('creates groups and subgroups, searches, lists descendants, shares and transfers', async () => {
    const top = await api.Groups.create(unique('gb-top'), unique('gb-top'));
    const sub = await api.Groups.create('child', 'child', { parentId: top.id });
    expect(sub.full_path).toBe(`${top.full_path}/child`);
    expect((await api.Groups.search(top.path)).map((g) => g.id)).toEqual([top.id]);
    expect((await api.Groups.allSubgroups(top.id)).map((g) => g.id)).toEqual([sub.id]);
    expect((await api.Groups.allDescendantGroups(top.id, {})).map((g) => g.id)).toEqual([sub.id]);
    await api.Groups.share(top.id, 'acme', 30, {});
    expect(((await api.Groups.show(top.id)).shared_with_groups as unknown[]).length).toBe(1);
    await api.Groups.unshare(top.id, 1, {});
    await api.Groups.transfer(sub.id, {});
    expect((await api.Groups.show(sub.id)).parent_id).toBeNull();
  });

  it('creates projects in a group and personally, pages them by keyset, edits, archives and deletes', async () => {
    const group = await api.Groups.create(unique('gb-fleet'), unique('gb-fleet'));
    const names = [unique('svc'), unique('svc'), unique('svc')];
    for (const name of names) await api.Projects.create({ name, namespaceId: group.id });
    const mine = await api.Projects.create({ name: unique('mine') });
    expect((mine.namespace as { kind: string }).kind).toBe('user');
    const inGroup = await api.Groups.allProjects(group.id, { perPage: 2 });
    expect(inGroup.map((p) => p.name).sort()).toEqual([...names].sort());
    const all = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 });
    expect(all.map((p) => p.id)).toEqual([...all.map((p) => p.id)].sort((a, b) => a - b));
    expect(all.map((p) => p.id)).toContain(mine.id);
    const edited = await api.Projects.edit(mine.id, { description: 'edited', topics: ['compat'] });
    expect(edited).toMatchObject({ description: 'edited', topics: ['compat'] });
    expect((await api.Projects.archive(mine.id)).archived).toBe(true);
    await api.Projects.remove(mine.id);
    await expect(api.Projects.show(mine.id)).rejects.toThrow();
  });

  it('adds, changes and removes members of groups and projects; lists inherited ones', async () => {
    await api.ProjectMembers.add('acme/web', 30, { userId: 5 });
    expect((await api.ProjectMembers.all('acme/web')).map((m) => m.id)).toContain(5);
    await api.ProjectMembers.edit('acme/web', 5, 40);
    expect((await api.ProjectMembers.show('acme/web', 5)).access_level).toBe(40);
    const inherited = await api.ProjectMembers.all('acme/web', { includeInherited: true });
    expect(inherited.map((m) => m.username)).toEqual(expect.arrayContaining(['root', 'alice', 'bob']));
    await api.ProjectMembers.remove('acme/web', 5);
    await api.GroupMembers.add('acme', 10, { userId: 6 });
    expect((await api.GroupMembers.all('acme')).map((m) => m.id)).toContain(6);
    await api.GroupMembers.remove('acme', 6);
  });

  it('manages group badges, push rules and project access tokens that expire today', async () => {
    const badge = await api.GroupBadges.add('acme', 'https://ci.example.com/%{project_path}', 'https://ci.example.com/g.svg', { name: 'gb' });
    expect((await api.GroupBadges.all('acme')).map((b) => b.id)).toContain(badge.id);
    expect((await api.ProjectBadges.all('acme/web')).map((b) => b.id)).toContain(badge.id);
    await api.GroupBadges.remove('acme', badge.id);
    const rule = await api.ProjectPushRules.create('acme/web', { denyDeleteTag: true });
    expect(rule.deny_delete_tag).toBe(true);
    await api.ProjectPushRules.remove('acme/web');
    const token = await api.ProjectAccessTokens.create('acme/web', 'gb-today', ['read_api'], today());
    expect(token.expires_at).toBe(today());
  });
});

describe('gitbeaker: merge requests and approvals', () => {
  it('creates a merge request, lists and shows it, sets MR approval rules and reads the approval state', async () => {
    const branch = unique('gb-branch');
    await api.RepositoryFiles.create('acme/web', `${branch}.txt`, branch, 'hello', 'add a file', { startBranch: 'main' });
    const mr = await api.MergeRequests.create('acme/web', branch, 'main', 'Compat change');
    expect((await api.MergeRequests.all({ projectId: 'acme/web', state: 'opened' })).map((m) => m.iid)).toContain(mr.iid);
    expect((await api.MergeRequests.show('acme/web', mr.iid)).source_branch).toBe(branch);
    const rule = await api.MergeRequestApprovals.createApprovalRule('acme/web', 'compat', 1, { mergerequestIId: mr.iid, usernames: ['alice'] });
    expect(rule.name).toBe('compat');
    const state = await api.MergeRequestApprovals.showApprovalState('acme/web', mr.iid);
    expect(state.approval_rules_overwritten).toBe(true);
    expect((state.rules as Array<{ name: string; approved: boolean }>).find((r) => r.name === 'compat')).toMatchObject({ approved: false });
    await api.MergeRequestApprovals.removeApprovalRule('acme/web', rule.id, { mergerequestIId: mr.iid });
    expect((await api.Metadata.show()).version).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('gitbeaker: webhooks, snippets and job artifacts', () => {
  it('adds, edits, lists and removes a project hook', async () => {
    const hook = await api.ProjectHooks.add('acme/api', 'http://127.0.0.1:9/compat', { pushEvents: true, tagPushEvents: true, token: 'compat-secret' });
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/compat', tag_push_events: true, alert_status: 'executable' });
    expect(hook).not.toHaveProperty('token');
    const edited = await api.ProjectHooks.edit('acme/api', hook.id, 'http://127.0.0.1:9/compat2', { noteEvents: true });
    expect(edited).toMatchObject({ url: 'http://127.0.0.1:9/compat2', note_events: true });
    expect((await api.ProjectHooks.all('acme/api')).map((h) => h.id)).toContain(hook.id);
    await api.ProjectHooks.remove('acme/api', hook.id);
    await expect(api.ProjectHooks.show('acme/api', hook.id)).rejects.toThrow();
  });

  it('creates a snippet with files and reads its content, a file, and user agent details where the service keeps them', async () => {
    const snippet = await api.ProjectSnippets.create('acme/api', unique('compat'), { files: [{ filePath: 'a.md', content: '# a\n' }, { filePath: 'b.md', content: '# b\n' }], visibility: 'private' });
    expect((snippet.files as Array<{ path: string }>).map((f) => f.path)).toEqual(['a.md', 'b.md']);
    expect(await api.ProjectSnippets.showContent('acme/api', snippet.id)).toBe('# a\n');
    expect(await api.ProjectSnippets.showRepositoryFileContent('acme/api', snippet.id, 'main', 'b.md')).toBe('# b\n');
    // One made through the API has no user agent detail (the service keeps one only while spam checking is on); the seeded one has.
    await expect(api.ProjectSnippets.showUserAgentDetails('acme/api', snippet.id)).rejects.toThrow('404 UserAgentDetail Not Found');
    expect(await api.ProjectSnippets.showUserAgentDetails('acme/api', 1)).toMatchObject({ akismet_submitted: false });
    await api.ProjectSnippets.remove('acme/api', snippet.id);
  });

  it('downloads the artifacts archive of a ref, and keeps the artifacts of a job', async () => {
    const archive = await api.JobArtifacts.downloadArchive('acme/api', { ref: 'main', job: 'build' });
    const bytes = Buffer.from(await archive.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    // A single file is text/plain, which gitbeaker hands over as a string.
    const file: unknown = await api.JobArtifacts.downloadArchive('acme/api', { ref: 'main', job: 'build', artifactPath: 'dist/VERSION' });
    expect(typeof file === 'string' ? file : await (file as Blob).text()).toBe('1.0.1\n');
    const [job] = (await api.Jobs.all('acme/api')).filter((j) => j.name === 'build' && j.status === 'success');
    expect((await api.JobArtifacts.keep('acme/api', job.id)).artifacts_expire_at).toBeNull();
  });
});
