import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const writes = () => sandbox.requests().filter((request) => !['GET', 'HEAD'].includes(request.method));

describe('files create, update, put and delete on a protected branch', () => {
  it('a Developer is told before anything is asked or sent that the protection of main does not let them push', async () => {
    const developer = sandbox.tokenWithRole('developer');
    const env = { FORGECTL_TOKEN: developer };
    // The service's own answer, which the command now says first.
    expect((await sandbox.call('DELETE', '/projects/acme%2Fapi/repository/files/README.md', { branch: 'main', commit_message: 'x' }, developer)).status).toBe(403);
    sandbox.clearRequests();
    const deleted = await sandbox.run(['files', 'delete', 'README.md', '--branch', 'main', '-m', 'Remove', '--project', 'acme/api'], { env });
    expect(deleted.code, deleted.stderr).toBe(4);
    expect(deleted.stderr).toMatch(/^error: branch main of project acme\/api is protected and its protection does not let you push to it; nothing was sent\nhint: .*forgectl protected-branches list --project acme\/api/);
    expect(deleted.stderr).not.toMatch(/confirm/i);
    const updated = await sandbox.run(['files', 'update', 'README.md', '--branch', 'main', '-m', 'Edit', '--content-file', '-', '--project', 'acme/api'], { env, input: 'new\n' });
    expect(updated.code, updated.stderr).toBe(4);
    const put = await sandbox.run(['files', 'put', 'NEW.md', '--branch', 'main', '-m', 'Add', '--content-file', '-', '--project', 'acme/api'], { env, input: 'new\n' });
    expect(put.code, put.stderr).toBe(4);
    expect(writes()).toEqual([]);
    // A Maintainer may push to main: asked, then written.
    const maintainer = await sandbox.run(['files', 'delete', 'README.md', '--branch', 'main', '-m', 'Remove', '--project', 'acme/api', '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(maintainer.code, maintainer.stderr).toBe(0);
  });

  it('a protected branch that lets the caller push (developers, or the caller named) is written as before', async () => {
    const developer = sandbox.tokenWithRole('developer');
    const env = { FORGECTL_TOKEN: developer };
    for (const branch of ['open-to-developers', 'open-to-one']) expect((await sandbox.call('POST', '/projects/acme%2Fapi/repository/branches', { branch, ref: 'main' })).status).toBe(201);
    const [user] = (await sandbox.call('GET', '/users?username=developer-of-acme')).body as Array<{ id: number }>;
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/protected_branches', { name: 'open-to-developers', push_access_level: 30 })).status).toBe(201);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/protected_branches', { name: 'open-to-one', push_access_level: 0, allowed_to_push: [{ user_id: user!.id }] })).status).toBe(201);
    for (const branch of ['open-to-developers', 'open-to-one']) {
      const created = await sandbox.run(['files', 'create', 'notes.md', '--branch', branch, '-m', 'Add notes', '--content-file', '-', '--project', 'acme/api'], { env, input: 'notes\n' });
      expect(created.code, created.stderr).toBe(0);
      const deleted = await sandbox.run(['files', 'delete', 'notes.md', '--branch', branch, '-m', 'Remove notes', '--project', 'acme/api', '--yes'], { env });
      expect(deleted.code, deleted.stderr).toBe(0);
    }
  });
});

describe('files update and delete --last-commit-id', () => {
  it('refuses (exit 6, file kept) when a later commit changed the file, and writes when none did', async () => {
    const P = ['--project', 'acme/api', '--branch', 'main', '-m', 'x'];
    await sandbox.run(['files', 'create', 'guarded.txt', ...P, '--content-file', '-'], { input: 'one\n' });
    const first = (await sandbox.run(['files', 'get', 'guarded.txt', '--ref', 'main', '--project', 'acme/api', '-o', 'json'])).json<{ last_commit_id: string }>().last_commit_id;
    await sandbox.run(['files', 'update', 'guarded.txt', ...P, '--content-file', '-'], { input: 'two\n' });
    const raw = async () => (await sandbox.call('GET', '/projects/acme%2Fapi/repository/files/guarded.txt/raw?ref=main')).text;

    const update = await sandbox.run(['files', 'update', 'guarded.txt', ...P, '--content-file', '-', '--last-commit-id', first], { input: 'three\n' });
    expect(update.code, update.stderr).toBe(6);
    expect(update.stderr).toContain('You are attempting to update a file that has changed since you started editing it.');
    // The files API's delete takes last_commit_id without checking it (as the service does): the commits API checks it.
    const deleted = await sandbox.run(['files', 'delete', 'guarded.txt', ...P, '--yes', '--last-commit-id', first]);
    expect(deleted.code, deleted.stderr).toBe(6);
    expect(deleted.stderr).toContain('The file has changed since you started editing it: guarded.txt');
    expect(await raw()).toBe('two\n');

    const current = (await sandbox.run(['files', 'get', 'guarded.txt', '--ref', 'main', '--project', 'acme/api', '-o', 'json'])).json<{ last_commit_id: string }>().last_commit_id;
    expect((await sandbox.run(['files', 'delete', 'guarded.txt', ...P, '--yes', '--last-commit-id', current])).code).toBe(0);
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/repository/files/guarded.txt/raw?ref=main')).status).toBe(404);
  });
});
