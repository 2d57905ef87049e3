import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('personal snippets, as the service answers', () => {
  it('creates, lists, reads raw, renames a single file, and deletes; others see only what its visibility allows', async () => {
    const created = await sandbox.call('POST', '/snippets', { title: 'mine', file_name: 'a.sh', content: 'echo hi\n', visibility: 'private' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'mine', project_id: null, visibility: 'private', file_name: 'a.sh', author: { username: 'root' }, web_url: `${sandbox.rootUrl}/-/snippets/${created.body.id}` });
    const id = created.body.id;
    expect((await sandbox.call('GET', '/snippets')).body.map((s: { id: number }) => s.id)).toContain(id);
    const raw = await fetch(`${sandbox.url}/snippets/${id}/raw`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(await raw.text()).toBe('echo hi\n');
    const renamed = await sandbox.call('PUT', `/snippets/${id}`, { file_name: 'b.sh', visibility: 'public' });
    expect(renamed.body).toMatchObject({ file_name: 'b.sh', visibility: 'public' });
    expect((await sandbox.call('GET', '/snippets/public', undefined, sandbox.tokenWithRole('guest'))).body.map((s: { id: number }) => s.id)).toEqual([id]);
    const developer = sandbox.tokenWithRole('developer');
    expect((await sandbox.call('GET', `/snippets/${id}`, undefined, developer)).status).toBe(200);
    expect(await sandbox.call('PUT', `/snippets/${id}`, { title: 'theirs' }, developer)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect(await sandbox.call('PUT', `/snippets/${id}`, {})).toEqual({ status: 400, body: { error: 'title, description, visibility, content, file_name, files are missing, at least one parameter must be provided' } });
    expect((await sandbox.call('DELETE', `/snippets/${id}`)).status).toBe(204);
    expect(await sandbox.call('GET', `/snippets/${id}`)).toEqual({ status: 404, body: { message: '404 Snippet Not Found' } });
    const hidden = await sandbox.call('POST', '/snippets', { title: 'private', files: [{ file_path: 'x.txt', content: 'x' }] });
    expect((await sandbox.call('GET', `/snippets/${hidden.body.id}`, undefined, developer)).status).toBe(404);
  });
});
