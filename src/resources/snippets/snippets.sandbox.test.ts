import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();
const P = '/projects/acme%2Fapi';

async function raw(path: string, token = sandbox.adminToken) {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': token } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

describe('project snippets', () => {
  it('creates a snippet with several files, presents them and serves each raw', async () => {
    const created = await sandbox.call('POST', `${P}/snippets`, { title: 'two files', files: [{ file_path: 'a.txt', content: 'A\n' }, { file_path: 'dir/b.txt', content: 'B\n' }] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      title: 'two files',
      visibility: 'private',
      file_name: 'a.txt',
      author: { username: 'root' },
      files: [{ path: 'a.txt', raw_url: expect.stringMatching(/\/-\/snippets\/\d+\/raw\/main\/a\.txt$/) }, { path: 'dir/b.txt' }],
      imported: false,
    });
    const id = created.body.id;
    expect(await raw(`${P}/snippets/${id}/raw`)).toEqual({ status: 200, type: 'text/plain; charset=utf-8', text: 'A\n' });
    expect((await raw(`${P}/snippets/${id}/files/main/dir%2Fb%2Etxt/raw`)).text).toBe('B\n');
    expect((await raw(`${P}/snippets/${id}/files/main/nope.txt/raw`)).status).toBe(404);
  });

  it('answers 400 for missing or bad files and a missing title', async () => {
    expect((await sandbox.call('POST', `${P}/snippets`, { title: 'x' })).body).toEqual({ error: 'files, content are missing, exactly one parameter must be provided' });
    expect((await sandbox.call('POST', `${P}/snippets`, { files: [{ file_path: 'a', content: 'a' }] })).body).toEqual({ error: 'title is missing' });
    expect((await sandbox.call('POST', `${P}/snippets`, { title: 'x', files: [{ file_path: '../a', content: 'a' }] })).status).toBe(400);
    // The deprecated single-file form still works.
    const old = await sandbox.call('POST', `${P}/snippets`, { title: 'old', file_name: 'one.sh', content: 'echo 1\n' });
    expect(old.body).toMatchObject({ file_name: 'one.sh', files: [{ path: 'one.sh' }] });
  });

  it('applies create, update, delete and move actions in one update, keeping earlier versions readable by commit id', async () => {
    const { body } = await sandbox.call('POST', `${P}/snippets`, { title: 'actions', files: [{ file_path: 'keep.txt', content: 'k\n' }, { file_path: 'old.txt', content: 'o\n' }, { file_path: 'gone.txt', content: 'g\n' }] });
    const updated = await sandbox.call('PUT', `${P}/snippets/${body.id}`, {
      files: [
        { action: 'update', file_path: 'keep.txt', content: 'k2\n' },
        { action: 'move', previous_path: 'old.txt', file_path: 'new/old.txt' },
        { action: 'delete', file_path: 'gone.txt' },
        { action: 'create', file_path: 'added.txt', content: 'a\n' },
      ],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.files.map((f: { path: string }) => f.path).sort()).toEqual(['added.txt', 'keep.txt', 'new/old.txt']);
    expect((await raw(`${P}/snippets/${body.id}/files/main/new%2Fold.txt/raw`)).text).toBe('o\n');
    expect((await raw(`${P}/snippets/${body.id}/files/HEAD/keep.txt/raw`)).text).toBe('k2\n');
    const bad = await sandbox.call('PUT', `${P}/snippets/${body.id}`, { files: [{ action: 'update', file_path: 'nope.txt', content: 'x' }] });
    expect(bad).toEqual({ status: 400, body: { message: "400 Bad request - A file with this name doesn't exist: nope.txt" } });
    expect((await sandbox.call('PUT', `${P}/snippets/${body.id}`, { files: [{ action: 'create', file_path: 'keep.txt', content: 'x' }] })).status).toBe(400);
  });

  it('lets only the author or a Maintainer change or delete a snippet; Reporters may create', async () => {
    const reporter = sandbox.tokenWithRole('reporter');
    const developer = sandbox.tokenWithRole('developer');
    const mine = await sandbox.call('POST', `${P}/snippets`, { title: 'by a reporter', files: [{ file_path: 'r.txt', content: 'r' }] }, reporter);
    expect(mine.status).toBe(201);
    expect((await sandbox.call('PUT', `${P}/snippets/${mine.body.id}`, { title: 'mine' }, reporter)).status).toBe(200);
    expect((await sandbox.call('PUT', `${P}/snippets/${mine.body.id}`, { title: 'theirs' }, developer)).status).toBe(403);
    expect((await sandbox.call('DELETE', `${P}/snippets/${mine.body.id}`, undefined, developer)).status).toBe(403);
    expect((await sandbox.call('POST', `${P}/snippets`, { title: 'x', files: [{ file_path: 'g', content: 'g' }] }, sandbox.tokenWithRole('guest'))).status).toBe(403);
    expect((await sandbox.call('DELETE', `${P}/snippets/${mine.body.id}`)).status).toBe(204);
    expect((await sandbox.call('DELETE', `${P}/snippets/${mine.body.id}`)).status).toBe(404);
  });

  it('shows user agent details to administrators only, and has none for a snippet made through the API (as the service without spam checking)', async () => {
    expect(await sandbox.call('GET', `${P}/snippets/1/user_agent_detail`)).toEqual({ status: 200, body: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64)', ip_address: '10.0.0.7', akismet_submitted: false } });
    expect((await sandbox.call('GET', `${P}/snippets/1/user_agent_detail`, undefined, sandbox.tokenWithRole('maintainer'))).status).toBe(403);
    const created = await fetch(`${sandbox.url}${P}/snippets`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': sandbox.adminToken, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: JSON.stringify({ title: 'ua', files: [{ file_path: 'u', content: 'u' }] }),
    }).then((r) => r.json());
    expect(await sandbox.call('GET', `${P}/snippets/${created.id}/user_agent_detail`)).toEqual({ status: 404, body: { message: '404 UserAgentDetail Not Found' } });
    const personal = await sandbox.call('POST', '/snippets', { title: 'mine', files: [{ file_path: 'm', content: 'm' }] });
    expect(await sandbox.call('GET', `/snippets/${personal.body.id}/user_agent_detail`)).toEqual({ status: 404, body: { message: '404 UserAgentDetail Not Found' } });
  });

  it('GET /snippets lists your personal snippets and those you wrote in projects; /snippets/all every one you may see', async () => {
    const personal = await sandbox.call('POST', '/snippets', { title: 'personal-1', files: [{ file_path: 'p', content: 'p' }] });
    const inProject = await sandbox.call('POST', `${P}/snippets`, { title: 'project-1', files: [{ file_path: 'q', content: 'q' }] });
    const mine = (await sandbox.call('GET', '/snippets?per_page=100')).body;
    expect(mine.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([personal.body.id, inProject.body.id]));
    expect(mine.find((s: { id: number }) => s.id === inProject.body.id)).toEqual(inProject.body);
    expect(mine.find((s: { id: number }) => s.id === personal.body.id).project_id).toBeNull();
    const all = (await sandbox.call('GET', '/snippets/all?per_page=100')).body;
    expect(all.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([1, personal.body.id, inProject.body.id]));
    // Another user's list holds neither.
    const other = (await sandbox.call('GET', '/snippets', undefined, sandbox.tokenWithRole('developer'))).body;
    expect(other.map((s: { id: number }) => s.id)).not.toContain(inProject.body.id);
  });
});
