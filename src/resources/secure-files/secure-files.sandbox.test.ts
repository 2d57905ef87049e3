import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

function upload(name: string | undefined, data: Buffer | undefined, token = sandbox.adminToken) {
  const form = new FormData();
  if (name !== undefined) form.append('name', name);
  if (data) form.append('file', new Blob([new Uint8Array(data)]), 'upload.bin');
  return fetch(`${sandbox.url}/projects/acme%2Fapi/secure_files`, { method: 'POST', headers: { 'PRIVATE-TOKEN': token }, body: form });
}

const get = (path: string, token = sandbox.adminToken) => fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': token } });

describe('sandbox: secure files (spec 1, api-facts §1.7)', () => {
  it('stores a multipart upload with its sha256 and serves the bytes back', async () => {
    const data = Buffer.from('keystore bytes\0\x01\x02');
    const response = await upload('release.keystore', data);
    expect(response.status).toBe(201);
    const record = await response.json();
    expect(Object.keys(record)).toEqual(['id', 'name', 'checksum', 'checksum_algorithm', 'created_at', 'expires_at', 'metadata']);
    expect(record.checksum).toBe(createHash('sha256').update(data).digest('hex'));
    const download = await get(`/projects/1/secure_files/${record.id}/download`);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
  });

  it('answers the real errors: missing parameters, taken name, too large', async () => {
    expect(await (await upload(undefined, Buffer.from('x'))).json()).toEqual({ error: 'name is missing' });
    expect(await (await upload('a', undefined)).json()).toEqual({ error: 'file is missing' });
    const taken = await upload('deploy.env', Buffer.from('x'));
    expect(taken.status).toBe(400);
    expect(await taken.json()).toEqual({ message: { name: ['has already been taken'] } });
    expect((await upload('huge', Buffer.alloc(5 * 1024 * 1024 + 1))).status).toBe(413);
  });

  it('lets developers read and only maintainers write; deletes with 204', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await get('/projects/1/secure_files', bob)).status).toBe(200);
    expect((await upload('bob.txt', Buffer.from('x'), bob)).status).toBe(403);
    const id = (await (await upload('temp.txt', Buffer.from('x'))).json()).id;
    const deleted = await fetch(`${sandbox.url}/projects/1/secure_files/${id}`, { method: 'DELETE', headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(deleted.status).toBe(204);
    expect(await (await get(`/projects/1/secure_files/${id}`)).json()).toEqual({ message: '404 Secure File Not Found' });
  });
});
