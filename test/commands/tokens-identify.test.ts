import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);

/** A project token of acme/api made as root, as a leak would find it. */
async function projectToken(name = 'leaky-deploy'): Promise<{ id: number; token: string; user_id: number }> {
  const created = await sandbox.call('POST', '/projects/acme%2Fapi/access_tokens', { name, scopes: ['read_api'], access_level: 30, expires_at: day(30) });
  expect(created.status).toBe(201);
  return created.body;
}

describe('POST and DELETE /admin/token (the sandbox, as the service answers)', () => {
  it('identifies any token for administrators, with the service status codes', async () => {
    const leaked = await projectToken();
    const answer = await sandbox.call('POST', '/admin/token', { token: leaked.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: leaked.id, name: 'leaky-deploy', user_id: leaked.user_id, revoked: false, active: true, scopes: ['read_api'] });
    expect(answer.body.token).toBeUndefined();
    expect((await sandbox.call('POST', '/admin/token', {})).status).toBe(400);
    expect((await sandbox.call('POST', '/admin/token', { token: 'glpat-nosuchtokenanywhere' })).status).toBe(404);
    expect((await sandbox.call('POST', '/admin/token', { token: leaked.token }, 'glpat-wrong')).status).toBe(401);
    expect((await sandbox.call('POST', '/admin/token', { token: leaked.token }, sandbox.tokenWithRole('owner'))).status).toBe(403);
    expect((await sandbox.call('DELETE', '/admin/token', { token: leaked.token }, sandbox.tokenWithRole('owner'))).status).toBe(403);
    expect((await sandbox.call('DELETE', '/admin/token', { token: leaked.token })).status).toBe(204);
    expect((await sandbox.call('GET', '/personal_access_tokens/self', undefined, leaked.token)).status).toBe(401);
    // Still identified once revoked; a second revoke is refused.
    expect((await sandbox.call('POST', '/admin/token', { token: leaked.token })).body).toMatchObject({ revoked: true, active: false });
    expect((await sandbox.call('DELETE', '/admin/token', { token: leaked.token })).status).toBe(400);
  });

  it('a token reads the groups and projects it belongs to (self/associations)', async () => {
    const leaked = await projectToken('assoc');
    const answer = await sandbox.call('GET', '/personal_access_tokens/self/associations', undefined, leaked.token);
    expect(answer.status).toBe(200);
    expect(answer.body.groups).toEqual([]);
    expect(answer.body.projects).toMatchObject([{ path_with_namespace: 'acme/api', access_levels: { project_access_level: 30 } }]);
  });
});

describe('tokens identify', () => {
  it('names the project and the owner of a leaked project token, and never prints the token', async () => {
    const leaked = await projectToken();
    const result = await sandbox.run(['tokens', 'identify', '-o', 'json'], { input: `${leaked.token}\n` });
    expect(result.code).toBe(0);
    const found = result.json();
    expect(found).toMatchObject({ type: 'project access token', id: leaked.id, name: 'leaky-deploy', project: 'acme/api', user_id: leaked.user_id, access_level_name: 'developer', source: 'admin', active: true });
    expect(found.owner).toMatch(/^project_\d+_bot_/);
    expect(result.stdout + result.stderr).not.toContain(leaked.token);
    // Never on argv: the token as an argument is an unknown argument, refused before anything is sent.
    sandbox.clearRequests();
    expect((await sandbox.run(['tokens', 'identify', leaked.token])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('offers the revoke command only while the token works, in a form a pipe\'s TSV prints as it runs', async () => {
    const leaked = await projectToken('fix-offered');
    const live = await sandbox.run(['tokens', 'identify'], { input: `${leaked.token}\n` });
    expect(live.stdout).toContain('fix\tprintf \'%s\' "$TOKEN" | forgectl tokens identify --revoke --yes\n');
    expect(live.stdout).not.toContain('\\');
    expect((await sandbox.call('DELETE', '/admin/token', { token: leaked.token })).status).toBe(204);
    const revoked = await sandbox.run(['tokens', 'identify', '-o', 'json'], { input: `${leaked.token}\n` });
    expect(revoked.json()).toMatchObject({ revoked: true, fix: '' });
  });

  it('--revoke names the owner in its confirmation and makes the token fail at once', async () => {
    const leaked = await projectToken('leaked-twice');
    expect((await sandbox.call('GET', '/projects/acme%2Fapi', undefined, leaked.token)).status).toBe(200);
    const refused = await sandbox.run(['tokens', 'identify', '--revoke'], { input: `${leaked.token}\n` });
    expect(refused.code).toBe(2);
    expect((await sandbox.call('GET', '/projects/acme%2Fapi', undefined, leaked.token)).status).toBe(200);
    const result = await sandbox.run(['tokens', 'identify', '--revoke', '--yes'], { input: `${leaked.token}\n` });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/Revoked the project access token "leaked-twice" \(id \d+\) of @project_\d+_bot_\w+ .* in project acme\/api/);
    // Revoked: the record says so and no longer suggests revoking it.
    expect(result.stdout).toMatch(/^revoked\s+true$/m);
    expect(result.stdout).not.toContain('--revoke');
    expect((await sandbox.call('GET', '/projects/acme%2Fapi', undefined, leaked.token)).status).toBe(401);
    expect(sandbox.requests().some((r) => r.method === 'DELETE' && r.path === '/api/v4/admin/token')).toBe(true);
    expect(sandbox.requests().every((r) => !r.path.includes(leaked.token))).toBe(true);
  });

  it('tells personal, group and impersonation tokens apart', async () => {
    const impersonation = await sandbox.call('POST', '/users/1/impersonation_tokens', { name: 'support-session', scopes: ['api'] });
    const group = await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'group-bot', scopes: ['api'], access_level: 40, expires_at: day(30) });
    const personal = await sandbox.call('POST', '/users/1/personal_access_tokens', { name: 'laptop', scopes: ['read_api'], expires_at: day(30) });
    const identify = async (token: string) => (await sandbox.run(['tokens', 'identify', '-o', 'json'], { input: token })).json();
    expect(await identify(impersonation.body.token)).toMatchObject({ type: 'impersonation token', owner: 'root', name: 'support-session' });
    expect(await identify(group.body.token)).toMatchObject({ type: 'group access token', group: 'acme', project: null, access_level_name: 'maintainer' });
    expect(await identify(personal.body.token)).toMatchObject({ type: 'personal access token', owner: 'root', scopes: ['read_api'] });
    const deploy = await sandbox.call('POST', '/projects/acme%2Fapi/deploy_tokens', { name: 'ci-pull', scopes: ['read_repository'] });
    expect(await identify(deploy.body.token)).toMatchObject({ type: 'deploy token', name: 'ci-pull', owner: deploy.body.username, active: true });
    expect((await sandbox.run(['tokens', 'identify', '--revoke', '--yes'], { input: deploy.body.token })).code).toBe(0);
    expect((await sandbox.call('POST', '/admin/token', { token: deploy.body.token })).body).toMatchObject({ revoked: true });
    const unknown = await sandbox.run(['tokens', 'identify'], { input: 'glpat-neverissuedhere0' });
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain('does not know the token');
  });

  it('without administrator rights the token tells about itself, and revokes itself', async () => {
    const leaked = await projectToken('self-told');
    const developer = { FORGECTL_TOKEN: sandbox.tokenWithRole('developer') };
    sandbox.clearRequests();
    const result = await sandbox.run(['tokens', 'identify', '-o', 'json'], { input: leaked.token, env: developer });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ type: 'project access token', project: 'acme/api', source: 'self', name: 'self-told' });
    expect(sandbox.requests().some((r) => r.path === '/api/v4/admin/token')).toBe(false);

    const personal = await sandbox.call('POST', '/users/1/personal_access_tokens', { name: 'leaked-pat', scopes: ['api'], expires_at: day(30) });
    const revoked = await sandbox.run(['tokens', 'identify', '--revoke', '--yes'], { input: personal.body.token, env: developer });
    expect(revoked.code).toBe(0);
    expect((await sandbox.call('GET', '/user', undefined, personal.body.token)).status).toBe(401);
    const again = await sandbox.run(['tokens', 'identify'], { input: personal.body.token, env: developer });
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('refused by the service (401)');
  });

  it('a runner authentication token: its runner and where it belongs, for administrators and for anyone holding it; revoking unregisters the runner', async () => {
    const register = async (description: string) => {
      const made = await sandbox.call('POST', '/user/runners', { runner_type: 'project_type', project_id: 1, description });
      expect(made.status).toBe(201);
      return made.body as { id: number; token: string };
    };
    // The service's answer: the runner as runner lists give it.
    const leaked = await register('leaky-runner');
    const answer = await sandbox.call('POST', '/admin/token', { token: leaked.token });
    expect(answer).toMatchObject({ status: 200, body: { id: leaked.id, description: 'leaky-runner', runner_type: 'project_type', paused: false } });
    expect(answer.body.token).toBeUndefined();

    const identify = async (token: string, env?: Record<string, string>) => sandbox.run(['tokens', 'identify', '-o', 'json'], { input: token, env });
    const found = await identify(leaked.token);
    expect(found.code).toBe(0);
    expect(found.json()).toMatchObject({ type: 'runner authentication token', id: leaked.id, name: 'leaky-runner', project: 'acme/api', owner: null, active: true, source: 'admin' });
    expect(found.stdout + found.stderr).not.toContain(leaked.token);

    const revoked = await sandbox.run(['tokens', 'identify', '--revoke', '--yes'], { input: leaked.token });
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`Revoked the runner authentication token "leaky-runner" (id ${leaked.id}) in project acme/api`);
    expect((await sandbox.call('GET', `/runners/${leaked.id}`)).status).toBe(404);
    expect((await sandbox.call('POST', '/runners/verify', { token: leaked.token })).status).toBe(403);
    expect((await identify(leaked.token)).code).toBe(5);

    // Without administrator rights the runner endpoint says whose it is, and the token unregisters its runner.
    const developer = { FORGECTL_TOKEN: sandbox.tokenWithRole('developer') };
    const other = await register('other-runner');
    const told = await identify(other.token, developer);
    expect(told.code).toBe(0);
    expect(told.json()).toMatchObject({ type: 'runner authentication token', id: other.id, source: 'self' });
    expect((await sandbox.run(['tokens', 'identify', '--revoke', '--yes'], { input: other.token, env: developer })).code).toBe(0);
    expect((await sandbox.call('GET', `/runners/${other.id}`)).status).toBe(404);
  });
});
