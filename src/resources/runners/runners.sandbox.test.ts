import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

let clock = new Date();
const sandbox = useTestSandbox({ now: () => clock });
const names = (body: Array<{ description: string }>) => body.map((r) => r.description);

describe('sandbox: runners', () => {
  it('lists every runner for administrators with the list fields, filtered by type, status, paused and tags', async () => {
    const all = await sandbox.call('GET', '/runners/all?per_page=100');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body[0])).toEqual(['id', 'description', 'ip_address', 'active', 'paused', 'is_shared', 'runner_type', 'name', 'online', 'status']);
    expect(all.headers.get('x-total')).toBe(String(all.body.length));
    expect(new Set(all.body.map((r: { status: string }) => r.status))).toEqual(new Set(['online', 'offline', 'stale', 'never_contacted']));
    expect(names((await sandbox.call('GET', '/runners/all?type=group_type')).body)).toEqual(['acme-k8s', 'acme-legacy', 'acme-arm']);
    expect(names((await sandbox.call('GET', '/runners/all?status=stale')).body)).toEqual(['shared-docker-2', 'shared-macos', 'acme-arm', 'web-builder']);
    expect(names((await sandbox.call('GET', '/runners/all?paused=true')).body)).toEqual(['acme-legacy']);
    expect(names((await sandbox.call('GET', '/runners/all?tag_list=docker,linux')).body)).toEqual(['shared-docker-1', 'shared-docker-2']);
    expect(await sandbox.call('GET', '/runners/all?status=gone')).toEqual({ status: 400, body: { error: 'status does not have a valid value' } });
    expect((await sandbox.call('GET', '/runners/all', undefined, sandbox.tokenWithRole('owner'))).status).toBe(403);
  });

  it('a project sees instance runners, its groups\' runners and its own; a group its own and the instance\'s', async () => {
    expect(names((await sandbox.call('GET', '/projects/acme%2Fapi/runners?per_page=100')).body)).toEqual(['shared-docker-1', 'shared-docker-2', 'shared-macos', 'acme-k8s', 'acme-legacy', 'acme-arm', 'api-gpu']);
    expect(names((await sandbox.call('GET', '/groups/acme/runners?type=group_type')).body)).toEqual(['acme-k8s', 'acme-legacy', 'acme-arm']);
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/runners', undefined, sandbox.tokenWithRole('developer'))).status).toBe(403);
    const maintainer = sandbox.tokenWithRole('maintainer');
    expect(names((await sandbox.call('GET', '/runners', undefined, maintainer)).body)).toEqual(expect.arrayContaining(['acme-k8s', 'api-gpu', 'web-builder']));
  });

  it('shows one runner with contacted_at, tags and owners; updates and checks settings; lists its jobs', async () => {
    const gpu = (await sandbox.call('GET', '/runners/all?tag_list=gpu')).body[0];
    const one = await sandbox.call('GET', `/runners/${gpu.id}`);
    expect(one.body).toMatchObject({ description: 'api-gpu', tag_list: ['gpu'], locked: true, access_level: 'ref_protected', maximum_timeout: 7200, projects: [{ path_with_namespace: 'acme/api' }] });
    expect(one.body.contacted_at).toEqual(expect.any(String));
    const updated = await sandbox.call('PUT', `/runners/${gpu.id}`, { paused: true, tag_list: ['gpu', 'cuda'] });
    expect(updated.body).toMatchObject({ paused: true, active: false, tag_list: ['gpu', 'cuda'] });
    expect(await sandbox.call('PUT', `/runners/${gpu.id}`, { maximum_timeout: 60 })).toEqual({ status: 400, body: { message: { maximum_timeout: ['needs to be at least 10 minutes'] } } });
    expect((await sandbox.call('PUT', `/runners/${gpu.id}`, {})).status).toBe(400);
    const jobs = await sandbox.call('GET', `/runners/${gpu.id}/jobs`);
    expect(jobs.body.length).toBeGreaterThan(0);
    expect(jobs.body[0]).toMatchObject({ project: { path_with_namespace: 'acme/api' }, pipeline: { project_id: expect.any(Number) } });
    expect(jobs.body.map((j: { id: number }) => j.id)).toEqual([...jobs.body.map((j: { id: number }) => j.id)].sort((a, b) => b - a));
    expect((await sandbox.call('GET', '/runners/9999')).body).toEqual({ message: '404 Runner Not Found' });
    expect((await sandbox.call('GET', `/runners/${gpu.id}`, undefined, sandbox.tokenWithRole('developer'))).status).toBe(403);
  });

  it('resets the authentication token: 201 with the new one, the old one no longer verifies', async () => {
    const created = await sandbox.call('POST', '/user/runners', { runner_type: 'project_type', project_id: 'acme/web', description: 'tmp' });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^glrt-/);
    expect((await sandbox.call('POST', '/runners/verify', { token: created.body.token })).status).toBe(200);
    const reset = await sandbox.call('POST', `/runners/${created.body.id}/reset_authentication_token`);
    expect(reset).toMatchObject({ status: 201, body: { token: expect.stringMatching(/^glrt-/), token_expires_at: null } });
    expect((await sandbox.call('POST', '/runners/verify', { token: created.body.token })).status).toBe(403);
    expect((await sandbox.call('POST', '/runners/verify', { token: reset.body.token })).status).toBe(200);
    expect((await sandbox.call('DELETE', `/runners/${created.body.id}`)).status).toBe(204);
  });

  it('status follows the sandbox\'s clock: online, then offline after 2 hours, stale after a week', async () => {
    const k8s = (await sandbox.call('GET', '/runners/all?tag_list=k8s')).body[0];
    expect(k8s.status).toBe('online');
    clock = new Date(clock.getTime() + 3 * 3_600_000);
    expect((await sandbox.call('GET', `/runners/${k8s.id}`)).body.status).toBe('offline');
    clock = new Date(clock.getTime() + 8 * 86_400_000);
    expect((await sandbox.call('GET', `/runners/${k8s.id}`)).body).toMatchObject({ status: 'stale', online: false });
  });
});
