import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const api = (path: string) => `/projects/acme%2Fapi/repository${path}`;

describe('branches and tags in the sandbox, as the service answers', () => {
  it('creates, gets and deletes branches whose names hold dots and slashes, with the service\'s errors', async () => {
    const created = await sandbox.call('POST', api('/branches'), { branch: 'release/1.2', ref: 'v1.1.0' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['name', 'merged', 'protected', 'default', 'developers_can_push', 'developers_can_merge', 'can_push', 'web_url', 'commit']);
    // The seed protects release/* in acme/api: the new branch is protected by that wildcard.
    expect(created.body).toMatchObject({ name: 'release/1.2', merged: true, protected: true, default: false, web_url: `${sandbox.rootUrl}/acme/api/-/tree/release/1.2` });
    expect((await sandbox.call('GET', api('/branches/release%2F1.2'))).body.commit.title).toBe('Describe the configuration');
    expect(await sandbox.call('POST', api('/branches'), { branch: 'release/1.2', ref: 'main' })).toEqual({ status: 400, body: { message: 'Branch already exists' } });
    expect(await sandbox.call('POST', api('/branches'), { branch: 'x', ref: 'nope' })).toEqual({ status: 400, body: { message: 'Invalid reference name: nope' } });
    expect(await sandbox.call('POST', api('/branches'), { branch: 'a..b', ref: 'main' })).toEqual({ status: 400, body: { message: 'Branch name is invalid' } });
    expect(await sandbox.call('POST', api('/branches'), { ref: 'main' })).toEqual({ status: 400, body: { error: 'branch is missing' } });
    expect(await sandbox.call('DELETE', api('/branches/main'))).toEqual({ status: 405, body: { message: 'Cannot remove HEAD branch' } });
    expect((await sandbox.call('DELETE', api('/branches/release%2F1.2'))).status).toBe(204);
    expect(await sandbox.call('GET', api('/branches/release%2F1.2'))).toEqual({ status: 404, body: { message: '404 Branch Not Found' } });
    const search = await sandbox.call('GET', `${api('/branches')}?search=%5Efeat`);
    expect(search.body.map((b: { name: string }) => b.name)).toEqual(['feature', 'feature/health']);
  });

  it('creates lightweight and annotated tags and deletes them', async () => {
    const light = await sandbox.call('POST', api('/tags'), { tag_name: 'light.1', ref: 'main' });
    expect(light.status).toBe(201);
    expect(Object.keys(light.body)).toEqual(['commit', 'release', 'name', 'target', 'message', 'protected', 'created_at']);
    expect(light.body).toMatchObject({ name: 'light.1', target: light.body.commit.id, message: null, created_at: null });
    const annotated = await sandbox.call('POST', api('/tags'), { tag_name: 'rel/2.0', ref: 'feature', message: 'Release 2.0' });
    expect(annotated.body).toMatchObject({ name: 'rel/2.0', message: 'Release 2.0' });
    expect(annotated.body.target).not.toBe(annotated.body.commit.id);
    expect(await sandbox.call('POST', api('/tags'), { tag_name: 'rel/2.0', ref: 'main' })).toEqual({ status: 400, body: { message: 'Tag rel/2.0 already exists' } });
    expect(await sandbox.call('POST', api('/tags'), { tag_name: 'x', ref: 'nope' })).toEqual({ status: 400, body: { message: 'Target nope is invalid' } });
    expect((await sandbox.call('GET', api('/tags/rel%2F2.0'))).body.message).toBe('Release 2.0');
    expect((await sandbox.call('DELETE', api('/tags/rel%2F2.0'))).status).toBe(204);
    expect(await sandbox.call('GET', api('/tags/rel%2F2.0'))).toEqual({ status: 404, body: { message: '404 Tag Not Found' } });
  });
});

describe('branches and tags commands', () => {
  it('creates a branch, lists it, and deletes it only when confirmed', async () => {
    const created = await sandbox.run(['branches', 'create', '--project', 'acme/api', '--branch', 'topic/x.y', '--ref', 'main', '-o', 'json']);
    expect(created.code).toBe(0);
    expect(created.json().name).toBe('topic/x.y');
    const list = await sandbox.run(['branches', 'list', '--project', 'acme/api']);
    expect(list.stdout.split('\n').map((line) => line.split('\t')[0])).toContain('topic/x.y');
    sandbox.clearRequests();
    const refused = await sandbox.run(['branches', 'delete', 'topic/x.y', '--project', 'acme/api']);
    expect(refused.code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const deleted = await sandbox.run(['branches', 'delete', 'topic/x.y', '--project', 'acme/api', '--yes']);
    expect(deleted.code).toBe(0);
    expect((await sandbox.run(['branches', 'get', 'topic/x.y', '--project', 'acme/api'])).code).toBe(5);
  });

  it('delete-merged names the branches it will delete, asks, and keeps the unmerged ones', async () => {
    await sandbox.call('POST', api('/branches'), { branch: 'old/merged', ref: 'main~1' });
    const preview = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api']);
    expect(preview.code).toBe(2);
    expect(preview.stderr).toContain('old/merged');
    expect((await sandbox.call('GET', api('/branches/old%2Fmerged'))).status).toBe(200);
    const done = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api', '--yes']);
    expect(done.code).toBe(0);
    const names = (await sandbox.call('GET', api('/branches'))).body.map((b: { name: string }) => b.name);
    expect(names).not.toContain('old/merged');
    expect(names).toContain('feature');
  });

  it('creates an annotated tag and deletes it with --yes', async () => {
    const created = await sandbox.run(['tags', 'create', '--project', 'acme/api', '--name', 'v3.0.0', '--ref', 'main', '--message', 'Three', '-o', 'json']);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ name: 'v3.0.0', message: 'Three' });
    expect((await sandbox.run(['tags', 'delete', 'v3.0.0', '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['tags', 'delete', 'v3.0.0', '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['tags', 'get', 'v3.0.0', '--project', 'acme/api'])).code).toBe(5);
  });

  it('shows a tag\'s own fields first and its commit last, at a terminal and in a pipe; -o json keeps the service\'s order', async () => {
    const created = await sandbox.run(['tags', 'create', '--project', 'acme/api', '--name', 'v3.1.0', '--ref', 'main', '--message', 'Three one'], { tty: true });
    expect(created.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the keys' bold
    const keys = (text: string) => text.replace(/\u001b\[\d+m/g, '').trimEnd().split('\n').map((line) => line.split(/\s+/)[0]);
    expect(keys(created.stdout)).toEqual(['name', 'target', 'message', 'protected', 'created_at', 'release', 'commit']);
    expect(keys((await sandbox.run(['tags', 'get', 'v3.1.0', '--project', 'acme/api'])).stdout)).toEqual(['name', 'target', 'message', 'protected', 'created_at', 'release', 'commit']);
    expect(Object.keys((await sandbox.run(['tags', 'get', 'v3.1.0', '--project', 'acme/api', '-o', 'json'])).json()).slice(0, 2)).toEqual(['commit', 'release']);
  });
});

describe('nothing deletes what the service protects', () => {
  it('delete-merged keeps a branch a wildcard rule protects (the new user\'s reproduction)', async () => {
    const created = await sandbox.run(['branches', 'create', '--project', 'acme/api', '--branch', 'release/1.2', '--ref', 'main', '-o', 'json']);
    expect(created.json()).toMatchObject({ name: 'release/1.2', protected: true, merged: true });
    const done = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api', '--yes']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/; kept, protected: (.*, )?release\/1\.2\b/);
    const after = await sandbox.run(['branches', 'get', 'release/1.2', '--project', 'acme/api', '-o', 'json']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.json().protected).toBe(true);
  });

  it('the sandbox never deletes a protected branch in bulk: exact names, wildcards, group rules, open merge requests', async () => {
    const branch = (name: string) => sandbox.call('POST', api('/branches'), { branch: name, ref: 'main' });
    for (const name of ['release/9.9', 'hotfix', 'group-kept/1', 'in-review', 'plain/merged']) expect((await branch(name)).status).toBe(201);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/protected_branches', { name: 'hotfix' })).status).toBe(201);
    expect((await sandbox.call('POST', '/groups/acme/protected_branches', { name: 'group-kept/*' })).status).toBe(201);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'in-review', target_branch: 'main', title: 'Under review' })).status).toBe(201);
    expect((await sandbox.call('DELETE', api('/merged_branches'))).status).toBe(202);
    const names = (await sandbox.call('GET', `${api('/branches')}?per_page=100`)).body.map((b: { name: string }) => b.name);
    expect(names).toEqual(expect.arrayContaining(['main', 'release/9.9', 'hotfix', 'group-kept/1', 'in-review']));
    expect(names).not.toContain('plain/merged');
  });

  it('delete-merged asks and --dry-run names only what goes, and names what is kept', async () => {
    await sandbox.call('POST', api('/branches'), { branch: 'old/one', ref: 'main' });
    await sandbox.call('POST', api('/branches'), { branch: 'release/7.0', ref: 'main' });
    sandbox.clearRequests();
    const asked = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api']);
    expect(asked.code).toBe(2);
    const question = asked.stderr.split('\n')[0];
    expect(question).toMatch(/^error: confirmation needed: Delete the merged branch of project acme\/api \(old\/one\); kept, protected: [^;]*release\/7\.0[^;]*; kept, an open merge request: in-review\?$/);
    const dry = await sandbox.run(['branches', 'delete-merged', '--project', 'acme/api', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stderr).toMatch(/would delete the merged branch of project acme\/api \(old\/one\); kept, protected: /);
    expect(dry.stdout).toContain('DELETE');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('branches delete of a protected branch: a Developer is told before anything is sent; a Maintainer is asked, naming it protected', async () => {
    await sandbox.call('POST', api('/branches'), { branch: 'release/8.0', ref: 'main' });
    const developer = sandbox.tokenWithRole('developer');
    expect(await sandbox.call('DELETE', api('/branches/release%2F8.0'), undefined, developer)).toEqual({
      status: 400,
      body: { message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.' },
    });
    sandbox.clearRequests();
    const refused = await sandbox.run(['branches', 'delete', 'release/8.0', '--project', 'acme/api', '--yes'], { env: { FORGECTL_TOKEN: developer } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^error: branch release\/8\.0 of project acme\/api is protected: only Maintainers and Owners may delete it; nothing was sent\n/);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    const asked = await sandbox.run(['branches', 'delete', 'release/8.0', '--project', 'acme/api']);
    expect(asked.stderr).toContain('Delete branch release/8.0 (protected) of project acme/api?');
    const maintainer = await sandbox.run(['branches', 'delete', 'release/8.0', '--project', 'acme/api', '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(maintainer.code, maintainer.stderr).toBe(0);
  });

  it('a deletion over several projects leaves a protected branch alone, an administrator\'s with --yes too, and deletes the others', async () => {
    // release/* is protected in acme/api and not in acme/web.
    for (const project of ['acme%2Fapi', 'acme%2Fweb']) await sandbox.call('POST', `/projects/${project}/repository/branches`, { branch: 'release/9.0', ref: 'main' });
    sandbox.clearRequests();
    const bulk = await sandbox.run(['branches', 'delete', 'release/9.0', '--group', 'acme', '--continue-on-error', '--yes']);
    expect(bulk.code, bulk.stderr).toBe(9);
    expect(bulk.stderr).toContain('acme/api: error: branch release/9.0 of project acme/api is protected: a deletion over several projects leaves protected branches alone, nothing was sent (to delete it, name it in that project alone, where the question says it is protected: forgectl branches delete release/9.0 --project acme/api)\n');
    expect(sandbox.requests().filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/api/v4/projects/acme%2Fweb/repository/branches/release%2F9%2E0']);
    expect((await sandbox.call('GET', api('/branches/release%2F9.0'))).body).toMatchObject({ name: 'release/9.0', protected: true });
    // Named in its project alone, it is asked about as protected and goes.
    expect((await sandbox.run(['branches', 'delete', 'release/9.0', '--project', 'acme/api', '--yes'])).code).toBe(0);
  });

  it('tags show whether a protected-tag rule covers them; a Developer cannot delete a protected tag, and is told before anything is sent', async () => {
    expect((await sandbox.call('POST', api('/tags'), { tag_name: 'release-5', ref: 'main' })).body.protected).toBe(true);
    expect((await sandbox.call('POST', api('/tags'), { tag_name: 'plain-5', ref: 'main' })).body.protected).toBe(false);
    const developer = sandbox.tokenWithRole('developer');
    expect(await sandbox.call('DELETE', api('/tags/release-5'), undefined, developer)).toEqual({
      status: 400,
      body: { message: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.' },
    });
    sandbox.clearRequests();
    const refused = await sandbox.run(['tags', 'delete', 'release-5', '--project', 'acme/api', '--yes'], { env: { FORGECTL_TOKEN: developer } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('error: tag release-5 of project acme/api is protected');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await sandbox.run(['tags', 'delete', 'plain-5', '--project', 'acme/api', '--yes'], { env: { FORGECTL_TOKEN: developer } })).code).toBe(0);
    expect((await sandbox.run(['tags', 'delete', 'release-5', '--project', 'acme/api', '--yes'])).code).toBe(0);
  });
});
