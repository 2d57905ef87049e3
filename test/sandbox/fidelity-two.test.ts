import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

// Answers where the sandbox differed from the service under a client library's own functional tests (round two).
let clock = new Date('2026-03-02T10:00:00Z');
const sandbox = useTestSandbox({ now: () => clock });

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

async function multipart(method: string, path: string, file: { name: string; data: Buffer }, token = sandbox.adminToken): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('avatar', new Blob([new Uint8Array(file.data)], { type: 'image/png' }), file.name);
  const response = await fetch(`${sandbox.url}${path}`, { method, headers: { 'PRIVATE-TOKEN': token }, body: form });
  return { status: response.status, body: await response.json() };
}

describe('sandbox fidelity, round two', () => {
  it('stores a project\'s and a group\'s avatar uploaded with PUT and serves it at avatar_url', async () => {
    for (const path of ['/projects/acme%2Fweb', '/groups/acme']) {
      const put = await multipart('PUT', path, { name: 'logo.png', data: PNG });
      expect(put.status).toBe(200);
      expect(put.body.avatar_url).toMatch(new RegExp(`^${sandbox.rootUrl}/uploads/-/system/(project|group)/avatar/\\d+/logo\\.png$`));
      const served = await fetch(put.body.avatar_url);
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
      expect((await sandbox.call('GET', path)).body.avatar_url).toBe(put.body.avatar_url);
    }
    const project = await sandbox.call('GET', '/projects/acme%2Fweb');
    expect(project.body.namespace.avatar_url).toMatch(/\/uploads\/-\/system\/group\/avatar\/1\/logo\.png$/);
    const wrong = await multipart('PUT', '/projects/acme%2Fweb', { name: 'logo.txt', data: PNG });
    expect(wrong).toEqual({ status: 400, body: { message: { avatar: ['file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico, webp'] } } });
  });

  it('shows and accepts the API throttle settings, then answers 429 "Retry later" beyond the limit, per user', async () => {
    const settings = await sandbox.call('GET', '/application/settings');
    expect(settings.body).toMatchObject({
      throttle_authenticated_api_enabled: false, throttle_authenticated_api_requests_per_period: 7200, throttle_authenticated_api_period_in_seconds: 3600,
      throttle_unauthenticated_api_enabled: false, throttle_authenticated_web_enabled: false, throttle_unauthenticated_web_enabled: false,
    });
    const developer = sandbox.tokenWithRole('developer');
    const put = await sandbox.call('PUT', '/application/settings', {
      throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 2, throttle_authenticated_api_period_in_seconds: 60,
    });
    expect(put.status).toBe(200);
    expect(put.body.throttle_authenticated_api_requests_per_period).toBe(2);
    // The throttle counts from the next request on (it runs before the request that enables it).
    expect((await sandbox.call('GET', '/projects/1')).headers.get('ratelimit-remaining')).toBe('1');
    const second = await sandbox.call('GET', '/projects/1');
    expect(second.status).toBe(200);
    expect(second.headers.get('ratelimit-remaining')).toBe('0');
    const over = await sandbox.call('GET', '/projects/1');
    expect(over.status).toBe(429);
    expect(over.text).toBe('Retry later\n');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Counted per user: another user still has requests left.
    expect((await sandbox.call('GET', '/projects/1', undefined, developer)).status).toBe(200);
    expect((await sandbox.call('PUT', '/application/settings', { throttle_authenticated_api_period_in_seconds: 0 })).status).toBe(429);
    clock = new Date(clock.getTime() + 60_000);
    const bad = await sandbox.call('PUT', '/application/settings', { throttle_authenticated_api_requests_per_period: 0 });
    expect(bad.status).toBe(400);
    expect((await sandbox.call('PUT', '/application/settings', { throttle_authenticated_api_enabled: false })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await sandbox.call('GET', '/projects/1')).status).toBe(200);
  });

  it('renames the file of a single-file snippet on PUT with file_name alone', async () => {
    const created = await sandbox.call('POST', '/projects/1/snippets', { title: 'one', file_name: 'a.py', content: 'print(1)\n', visibility: 'private' });
    const renamed = await sandbox.call('PUT', `/projects/1/snippets/${created.body.id}`, { file_name: 'b.py' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.file_name).toBe('b.py');
    expect(renamed.body.files.map((f: { path: string }) => f.path)).toEqual(['b.py']);
    const raw = await fetch(`${sandbox.url}/projects/1/snippets/${created.body.id}/files/main/b.py/raw`, { headers: { 'PRIVATE-TOKEN': sandbox.adminToken } });
    expect(await raw.text()).toBe('print(1)\n');
  });

  it('answers a commit\'s signature: 404 Signature Not Found when unsigned, the record when signed', async () => {
    const unsigned = await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/feature/signature');
    expect(unsigned).toEqual({ status: 404, body: { message: '404 Signature Not Found' } });
    const signed = await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/v1.1.0/signature');
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ signature_type: 'PGP', verification_status: 'verified', gpg_key_user_email: 'alice@example.com', commit_source: 'gitaly' });
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/repository/commits/0000000/signature')).body).toEqual({ message: '404 Commit Not Found' });
  });

  it('deletes a merge request for administrators and owners only', async () => {
    const mr = await sandbox.call('POST', '/projects/acme%2Fapi/merge_requests', { source_branch: 'feature', target_branch: 'stable', title: 'to delete' });
    const maintainer = sandbox.tokenWithRole('maintainer');
    expect(await sandbox.call('DELETE', `/projects/acme%2Fapi/merge_requests/${mr.body.iid}`, undefined, maintainer)).toEqual({ status: 403, body: { message: '403 Forbidden' } });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fapi/merge_requests/${mr.body.iid}`)).status).toBe(204);
    expect(await sandbox.call('GET', `/projects/acme%2Fapi/merge_requests/${mr.body.iid}`)).toEqual({ status: 404, body: { message: '404 Merge Request Not Found' } });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fapi/merge_requests/${mr.body.iid}`)).status).toBe(404);
  });
});
