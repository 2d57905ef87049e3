import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';

let clock = new Date();
const sandbox = useTestSandbox({ now: () => clock });

describe('sandbox: deploy tokens of projects and groups, and the instance list', () => {
  it('creates with 201, the value only in that answer, the service\'s field order and its default username', async () => {
    const r = await sandbox.call('POST', '/projects/acme%2Fweb/deploy_tokens', { name: 'pull', scopes: ['read_registry'], expires_at: '2030-01-31' });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(['id', 'name', 'username', 'expires_at', 'revoked', 'expired', 'scopes', 'token']);
    expect(r.body).toMatchObject({ username: `gitlab+deploy-token-${r.body.id}`, expires_at: '2030-01-31T00:00:00.000Z', revoked: false, expired: false });
    expect(r.body.token).toMatch(/^gldt-/);
    const read = await sandbox.call('GET', `/projects/acme%2Fweb/deploy_tokens/${r.body.id}`);
    expect(read.body).not.toHaveProperty('token');
    const list = await sandbox.call('GET', '/projects/acme%2Fweb/deploy_tokens');
    expect(list.headers.get('x-total')).toBe(String(list.body.length));
    expect(list.body.every((t: object) => !('token' in t))).toBe(true);
  });

  it('validates as the service does: missing fields, unknown scopes, a bad date, a bad username', async () => {
    expect((await sandbox.call('POST', '/projects/1/deploy_tokens', { scopes: ['read_repository'] })).body).toEqual({ error: 'name is missing' });
    expect((await sandbox.call('POST', '/projects/1/deploy_tokens', { name: 'x' })).body).toEqual({ error: 'scopes is missing' });
    expect(await sandbox.call('POST', '/projects/1/deploy_tokens', { name: 'x', scopes: ['api'] })).toEqual({ status: 400, body: { error: 'scopes does not have a valid value' } });
    expect(await sandbox.call('POST', '/groups/acme/deploy_tokens', { name: 'x', scopes: ['read_repository'], expires_at: 'soon' })).toEqual({ status: 400, body: { error: 'expires_at is invalid' } });
    expect((await sandbox.call('POST', '/groups/acme/deploy_tokens', { name: 'x', scopes: ['read_repository'], username: 'no spaces' })).status).toBe(400);
  });

  it('needs Maintainer of the project or group, and an administrator for the instance list', async () => {
    const developer = sandbox.tokenWithRole('developer');
    expect((await sandbox.call('GET', '/projects/acme%2Fapi/deploy_tokens', undefined, developer)).status).toBe(403);
    expect((await sandbox.call('GET', '/groups/acme/deploy_tokens', undefined, sandbox.tokenWithRole('maintainer'))).status).toBe(200);
    expect((await sandbox.call('GET', '/deploy_tokens', undefined, developer)).status).toBe(403);
  });

  it('seeds an expired and a revoked token; active=true leaves them out', async () => {
    const api = (await sandbox.call('GET', '/projects/acme%2Fapi/deploy_tokens')).body;
    expect(api.find((t: { name: string }) => t.name === 'release-mirror')).toMatchObject({ expired: true, revoked: false });
    const web = (await sandbox.call('GET', '/projects/acme%2Fweb/deploy_tokens')).body;
    expect(web.find((t: { name: string }) => t.name === 'old-deployer')).toMatchObject({ revoked: true });
    const active = (await sandbox.call('GET', '/deploy_tokens?active=true')).body;
    expect(active.map((t: { name: string }) => t.name)).not.toContain('release-mirror');
    expect(active.map((t: { name: string }) => t.name)).not.toContain('old-deployer');
  });

  it('a token expires by the sandbox\'s clock', async () => {
    const r = await sandbox.call('POST', '/groups/acme/deploy_tokens', { name: 'short', scopes: ['read_repository'], expires_at: new Date(clock.getTime() + 86_400_000).toISOString() });
    expect(r.body.expired).toBe(false);
    clock = new Date(clock.getTime() + 2 * 86_400_000);
    expect((await sandbox.call('GET', `/groups/acme/deploy_tokens/${r.body.id}`)).body.expired).toBe(true);
  });

  it('DELETE destroys the token, as the service does: gone from its project and from the instance list', async () => {
    const { body } = await sandbox.call('POST', '/projects/acme%2Fapi/deploy_tokens', { name: 'doomed', scopes: ['read_repository'] });
    expect((await sandbox.call('DELETE', `/projects/acme%2Fapi/deploy_tokens/${body.id}`)).status).toBe(204);
    expect(await sandbox.call('GET', `/projects/acme%2Fapi/deploy_tokens/${body.id}`)).toEqual({ status: 404, body: { message: '404 Deploy Token Not Found' } });
    const all = (await sandbox.call('GET', '/deploy_tokens?per_page=100')).body;
    expect(all.find((t: { id: number }) => t.id === body.id)).toBeUndefined();
  });
});
