import { describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

const call = (...args: Parameters<TestSandbox['call']>) => sandbox.call(...args);

describe('sandbox: protected tags (spec 1, api-facts §1.8)', () => {
  it('creates with 201 and create_access_level 40 by default', async () => {
    const r = await call('POST', '/projects/1/protected_tags', { name: '*-stable' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ name: '*-stable', create_access_levels: [{ id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }] });
  });

  it('answers 400 for a bad level, 422 with an array of messages for a taken name or a non-member', async () => {
    expect(await call('POST', '/projects/1/protected_tags', { name: 'a', create_access_level: 50 })).toEqual({ status: 400, body: { error: 'create_access_level does not have a valid value' } });
    expect(await call('POST', '/projects/1/protected_tags', { name: '*-stable' })).toEqual({ status: 422, body: { message: ['Name has already been taken'] } });
    const outsider = await call('POST', '/projects/1/protected_tags', { name: 'b', allowed_to_create: [{ user_id: 999 }] });
    expect(outsider).toEqual({ status: 422, body: { message: ['Create access levels user is not a member of the project'] } });
    expect((await call('POST', '/projects/1/protected_tags', {})).body).toEqual({ error: 'name is missing' });
  });

  it('finds by encoded name, unprotects with 204, then 404', async () => {
    expect((await call('GET', '/projects/1/protected_tags/*-stable')).status).toBe(200);
    expect((await call('DELETE', '/projects/1/protected_tags/*-stable')).status).toBe(204);
    expect(await call('DELETE', '/projects/1/protected_tags/*-stable')).toEqual({ status: 404, body: { message: '404 Not found' } });
    expect((await call('GET', '/projects/1/protected_tags/release/x')).status).toBe(404);
  });

  it('needs Maintainer', async () => {
    const bob = tokens(sandbox.db).find((t) => t.name === 'bob-token')!.token;
    expect((await call('POST', '/projects/1/protected_tags', { name: 'bob-*' }, bob)).status).toBe(403);
  });
});

describe('sandbox: protected tags on the free tier', () => {
  it('ignores allowed_to_create and shows no user_id/group_id', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const response = await fetch(`${free.url}/projects/1/protected_tags`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': free.adminToken, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'v*', allowed_to_create: [{ user_id: 999 }] }),
      });
      expect(response.status).toBe(201);
      expect((await response.json()).create_access_levels).toEqual([{ id: expect.any(Number), access_level: 40, access_level_description: 'Maintainers' }]);
    } finally {
      await free.close();
    }
  });
});
