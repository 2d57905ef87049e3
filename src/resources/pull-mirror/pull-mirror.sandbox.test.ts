import { describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: pull mirror (spec 1, api-facts §1.19)', () => {
  it('answers 400 "not mirrored" before a mirror is set', async () => {
    expect(await call('GET', '/projects/1/mirror/pull')).toMatchObject({ status: 400, body: { message: 'The project is not mirrored' } });
    expect((await call('POST', '/projects/1/mirror/pull')).status).toBe(400);
  });

  it('masks credentials in every response and schedules the first update', async () => {
    const put = await call('PUT', '/projects/1/mirror/pull', { url: 'https://user:s3cret@src.example.com/r.git', enabled: true, auth_password: 'other-secret' });
    expect(put.status).toBe(200);
    expect(Object.keys(put.body)).toEqual([
      'id', 'last_error', 'last_successful_update_at', 'last_update_at', 'last_update_started_at', 'update_status', 'url', 'enabled',
      'mirror_trigger_builds', 'only_mirror_protected_branches', 'mirror_overwrites_diverged_branches', 'mirror_branch_regex',
    ]);
    expect(put.body).toMatchObject({ url: 'https://*****:*****@src.example.com/r.git', update_status: 'scheduled' });
    for (const r of [put, await call('GET', '/projects/1/mirror/pull'), await call('GET', '/projects/1/mirror/pull')]) {
      expect(r.text).not.toMatch(/s3cret|other-secret/);
    }
  });

  it('advances update_status on reads, and a POST starts a new update with 202', async () => {
    expect((await call('GET', '/projects/1/mirror/pull')).body.update_status).toBe('finished');
    expect(await call('POST', '/projects/1/mirror/pull')).toMatchObject({ status: 202 });
    const started = (await call('GET', '/projects/1/mirror/pull')).body;
    expect(started.update_status).toBe('started');
    const finished = (await call('GET', '/projects/1/mirror/pull')).body;
    expect(finished).toMatchObject({ update_status: 'finished', last_error: null });
    expect(finished.last_successful_update_at).not.toBeNull();
  });

  it('fails updates from unresolvable hosts with a masked last_error', async () => {
    await call('PUT', '/projects/1/mirror/pull', { url: 'https://u:p4ss@nowhere.invalid/r.git' });
    await call('POST', '/projects/1/mirror/pull');
    await call('GET', '/projects/1/mirror/pull');
    const failed = await call('GET', '/projects/1/mirror/pull');
    expect(failed.body.update_status).toBe('failed');
    expect(failed.body.last_error).toContain('Could not resolve host');
    expect(failed.text).not.toContain('p4ss');
  });

  it('validates: at least one parameter, allowed schemes, regex with only-protected', async () => {
    expect((await call('PUT', '/projects/1/mirror/pull', {})).body.error).toMatch(/at least one parameter must be provided$/);
    expect(await call('PUT', '/projects/1/mirror/pull', { url: 'file:///etc/passwd' })).toMatchObject({ status: 400, body: { message: 'Url is blocked: Only allowed schemes are http, https, ssh, git' } });
    expect((await call('PUT', '/projects/1/mirror/pull', { only_mirror_protected_branches: true, mirror_branch_regex: '^a' })).status).toBe(400);
  });

  it('enabled=false removes mirroring; developers and the free tier get 403', async () => {
    expect((await call('PUT', '/projects/1/mirror/pull', { enabled: false })).body.enabled).toBe(false);
    expect((await call('GET', '/projects/1/mirror/pull')).status).toBe(400);
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await call('GET', '/projects/2/mirror/pull', undefined, bob)).status).toBe(403);
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const r = await fetch(`${free.url}/projects/2/mirror/pull`, { headers: { 'PRIVATE-TOKEN': free.adminToken } });
      expect(r.status).toBe(403);
    } finally {
      await free.close();
    }
  });
});
