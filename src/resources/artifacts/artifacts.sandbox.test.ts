import yauzl from 'yauzl';
import { describe, expect, it } from 'vitest';
import { jobs } from '../../sandbox/model.js';
import { useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox({ artifactSize: 3 * 1024 * 1024 });
const P = '/projects/acme%2Fapi';

async function get(path: string, headers: Record<string, string> = {}, token = sandbox.adminToken) {
  const response = await fetch(`${sandbox.url}${path}`, { headers: { 'PRIVATE-TOKEN': token, ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The text files of a zip, read with yauzl (checks CRCs and sizes); large generated entries are only checked. */
async function unzip(bytes: Buffer): Promise<Record<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((ok, fail) => yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (e, z) => (e ? fail(e) : ok(z))));
  const files: Record<string, string> = {};
  await new Promise<void>((ok, fail) => {
    zip.on('end', ok);
    zip.on('error', fail);
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, async (error, stream) => {
        if (error) return fail(error);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        if (!entry.fileName.endsWith('.bin')) files[entry.fileName] = Buffer.concat(chunks).toString('utf8');
        zip.readEntry();
      });
    });
    zip.readEntry();
  });
  return files;
}

describe('job artifacts', () => {
  it('serves the archive of the job in the latest successful pipeline of a ref; the parent pipeline wins over a child', async () => {
    const archive = await get(`${P}/jobs/artifacts/main/download?job=build`);
    expect(archive.status).toBe(200);
    expect(archive.headers.get('content-type')).toBe('application/zip');
    expect(archive.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(archive.headers.get('content-length'))).toBe(archive.bytes.length);
    expect(archive.bytes.length).toBeGreaterThan(3 * 1024 * 1024);
    const files = await unzip(archive.bytes);
    expect(files['dist/VERSION']).toBe('1.0.1\n');
    expect(files).not.toHaveProperty('child.txt');
    // A job only the child pipeline has is found there.
    expect(await unzip((await get(`${P}/jobs/artifacts/main/download?job=docs`)).bytes)).toHaveProperty(['docs/index.html']);
    expect((await unzip((await get(`${P}/jobs/artifacts/v1.0.0/download?job=build`)).bytes))['dist/VERSION']).toBe('1.0.0\n');
  });

  it('answers 404 without artifacts (report artifacts only, a manual job, no successful pipeline), 400 without ?job', async () => {
    expect((await get(`${P}/jobs/artifacts/main/download?job=test`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/main/download?job=deploy`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/feature%2Fhealth/download?job=build`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/nope/download?job=build`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/main/download`)).status).toBe(400);
  });

  it('answers a byte range with 206 while If-Range still matches, 200 when it does not, 416 past the end', async () => {
    const whole = await get(`${P}/jobs/artifacts/main/download?job=build`);
    const etag = whole.headers.get('etag')!;
    const part = await get(`${P}/jobs/artifacts/main/download?job=build`, { Range: 'bytes=1000-', 'If-Range': etag });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-${whole.bytes.length - 1}/${whole.bytes.length}`);
    expect(part.bytes.equals(whole.bytes.subarray(1000))).toBe(true);
    expect((await get(`${P}/jobs/artifacts/main/download?job=build`, { Range: 'bytes=10-19' })).bytes.equals(whole.bytes.subarray(10, 20))).toBe(true);
    expect((await get(`${P}/jobs/artifacts/main/download?job=build`, { Range: 'bytes=1000-', 'If-Range': '"stale"' })).status).toBe(200);
    expect((await get(`${P}/jobs/artifacts/main/download?job=build`, { Range: `bytes=${whole.bytes.length}-` })).status).toBe(416);
  });

  it('streams one file by job and by ref (slashes kept); 400 for a path leaving the archive, 404 for a missing one', async () => {
    const build = jobs(sandbox.db).find((j) => j.name === 'build' && j.archive?.some((e) => e.text === '1.0.1\n'))!;
    const byJob = await get(`${P}/jobs/${build.id}/artifacts/dist/app.js`);
    expect(byJob.status).toBe(200);
    expect(byJob.bytes.toString()).toContain('acme/api 1.0.1');
    const byRef = await get(`${P}/jobs/artifacts/main/raw/dist/VERSION?job=build`);
    expect(byRef.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(byRef.bytes.toString()).toBe('1.0.1\n');
    expect((await get(`${P}/jobs/${build.id}/artifacts/dist/..%2F..%2Fetc/passwd`)).status).toBe(400);
    expect((await get(`${P}/jobs/${build.id}/artifacts/dist/missing.js`)).status).toBe(404);
  });

  it('keeps artifacts from expiring, deletes one job\'s (204), and delete-all (202) keeps the latest successful pipeline\'s', async () => {
    const older = jobs(sandbox.db).find((j) => j.name === 'build' && j.archive?.some((e) => e.text === '0.9.0\n'))!;
    const kept = await sandbox.call('POST', `${P}/jobs/${older.id}/artifacts/keep`);
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ id: older.id, artifacts_expire_at: null, artifacts_file: { filename: 'artifacts.zip' } });

    expect((await sandbox.call('DELETE', `${P}/artifacts`, undefined, sandbox.tokenWithRole('developer'))).status).toBe(403);
    expect(await sandbox.call('DELETE', `${P}/artifacts`)).toEqual({ status: 202, body: { message: '202 Accepted' } });
    expect((await get(`${P}/jobs/${older.id}/artifacts`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/main/download?job=build`)).status).toBe(200);
    expect((await get(`${P}/jobs/artifacts/v1.0.0/download?job=build`)).status).toBe(200);

    const docs = jobs(sandbox.db).find((j) => j.name === 'docs')!;
    expect((await sandbox.call('DELETE', `${P}/jobs/${docs.id}/artifacts`)).status).toBe(204);
    expect((await sandbox.call('DELETE', `${P}/jobs/${docs.id}/artifacts`)).status).toBe(404);
    expect((await get(`${P}/jobs/artifacts/main/download?job=docs`)).status).toBe(404);
    // The job itself (and its log) stays.
    expect((await sandbox.call('GET', `${P}/jobs/${docs.id}`)).status).toBe(200);
  });

  it('takes the token of a running job of the project (Premium and up), and refuses readers below Reporter', async () => {
    const running = jobs(sandbox.db).find((j) => j.status === 'running')!;
    const token = sandbox.db.table<{ kind: string; resource_id?: number; token: string }>('tokens').find((t) => t.kind === 'job' && t.resource_id === running.id)!.token;
    const withJobToken = await fetch(`${sandbox.url}${P}/jobs/artifacts/v1.0.0/download?job=build`, { headers: { 'JOB-TOKEN': token } });
    expect(withJobToken.status).toBe(200);
    await withJobToken.arrayBuffer();
    running.status = 'success';
    expect((await fetch(`${sandbox.url}${P}/jobs/artifacts/v1.0.0/download?job=build`, { headers: { 'JOB-TOKEN': token } })).status).toBe(401);
    running.status = 'running';
    expect((await get(`${P}/jobs/artifacts/v1.0.0/download?job=build`, {}, sandbox.tokenWithRole('guest'))).status).toBe(403);
  });
});

describe('job artifacts on the free tier', () => {
  const free = useTestSandbox({ tier: 'free' });
  it('refuses CI job tokens (the spec allows them on Premium and Ultimate)', async () => {
    const token = free.db.table<{ kind: string; token: string }>('tokens').find((t) => t.kind === 'job')!.token;
    expect((await fetch(`${free.url}${P}/jobs/artifacts/main/download?job=build`, { headers: { 'JOB-TOKEN': token } })).status).toBe(403);
  });
});
