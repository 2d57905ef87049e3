import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variables } from '../../src/resources/variables/sandbox.js';
import { tempDir, useTestSandbox, type RunOptions } from '../helpers/cli.js';

/**
 * The tokens of service accounts (the instance's, a top-level group's): created, listed, read, revoked and rotated
 * by an administrator or the group's Owner, rotated from cron with --save-to and --save-to-profile, audited.
 */
const sandbox = useTestSandbox();
const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
const authenticates = async (token: string): Promise<boolean> => (await sandbox.call('GET', '/personal_access_tokens/self', undefined, token)).status === 200;

/** A config folder with two profiles of the sandbox: "admin" (root) and "svc" (holding `token`). */
function profiles(token: string) {
  const dir = tempDir();
  const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_TOKEN: undefined, FORGECTL_URL: undefined };
  const run = (argv: string[], options: RunOptions = {}) => sandbox.run(argv, { ...options, env: { ...env, ...options.env } });
  const profileToken = (name: string): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles[name].token;
  return {
    run,
    profileToken,
    async login() {
      for (const [name, secret] of [['admin', sandbox.adminToken], ['svc', token]]) {
        expect((await run(['auth', 'login', '--profile', name, '--url', sandbox.rootUrl, '--token-stdin', '--insecure-storage'], { input: `${secret}\n` })).code).toBe(0);
      }
      expect((await run(['profile', 'use', 'admin'])).code).toBe(0);
    },
  };
}

/** An instance service account with one token, made through the commands. */
async function accountWithToken(username: string) {
  const account = (await sandbox.run(['service-accounts', 'create', '--instance', '--username', username, '-o', 'json'])).json();
  const made = await sandbox.run(['tokens', 'create', '--service-account', username, '--name', 'cron', '--scopes', 'api', '--expires-in', '30d', '-o', 'json']);
  expect(made.code, made.stderr).toBe(0);
  return { account, token: made.json() };
}

describe('an instance service account\'s tokens', () => {
  it('are created by an administrator, listed, read by id and revoked after the question', async () => {
    const { account, token } = await accountWithToken('svc-tokens');
    expect(token).toMatchObject({ name: 'cron', scopes: ['api'], user_id: account.id, expires_at: day(30) });
    expect(await authenticates(token.token)).toBe(true);
    const listed = await sandbox.run(['tokens', 'list', '--service-account', 'svc-tokens', '-o', 'json']);
    expect(listed.json().map((t: { id: number }) => t.id)).toEqual([token.id]);
    expect(listed.stdout).not.toContain(token.token);
    const got = (await sandbox.run(['tokens', 'get', String(token.id), '--service-account', String(account.id), '-o', 'json'])).json();
    expect(got).toMatchObject({ id: token.id, user_id: account.id });
    // A personal token has no access level: no empty name for one the service never gave.
    for (const record of [listed.json()[0], got]) expect(record).not.toHaveProperty('access_level_name');
    // Another user's token is not this account's (exit 5, naming the list).
    const other = await sandbox.run(['tokens', 'get', String(token.id), '--service-account', 'service_account_deploy']);
    expect(other.code).toBe(5);
    expect(other.stderr).toContain('forgectl tokens list --service-account service_account_deploy');

    sandbox.clearRequests();
    expect((await sandbox.run(['tokens', 'revoke', String(token.id), '--service-account', 'svc-tokens'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const revoked = await sandbox.run(['tokens', 'revoke', String(token.id), '--service-account', 'svc-tokens', '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await authenticates(token.token)).toBe(false);
  });

  it('`self` is named as the personal token it is; --access-level, --user and --project do not go with it (exit 2, nothing sent)', async () => {
    sandbox.clearRequests();
    const self = await sandbox.run(['tokens', 'rotate', 'self', '--service-account', 'svc-tokens', '--yes']);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('tokens rotate self --personal');
    for (const argv of [
      ['tokens', 'create', '--service-account', 'x', '--name', 'n', '--scopes', 'api', '--access-level', 'developer'],
      ['tokens', 'list', '--service-account', 'x', '--project', 'acme/api'],
      ['tokens', 'list', '--service-account', 'x', '--user', 'alice'],
      ['tokens', 'list', '--service-account', ' '],
    ]) expect((await sandbox.run(argv)).code, argv.join(' ')).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('an administrator\'s cron rotates one into a CI/CD variable and a profile: the job and the profile authenticate as the account, nothing printed', async () => {
    const { account, token } = await accountWithToken('svc-cron');
    const p = profiles(token.token);
    await p.login();
    const rotated = await p.run(['tokens', 'rotate', String(token.id), '--service-account', 'svc-cron', '--save-to', 'ci-var:acme/SVC_TOKEN', '--save-to-profile', 'svc', '--yes', '-o', 'json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = p.profileToken('svc');
    expect(fresh).not.toBe(token.token);
    expect(rotated.stdout + rotated.stderr).not.toContain(fresh);
    expect(rotated.json()).toMatchObject({ name: 'cron', user_id: account.id });
    expect(rotated.stderr).toContain('CI/CD variable SVC_TOKEN of group acme');
    // The administrator's own profile is untouched; the job is handed the new token and authenticates as the account.
    expect(p.profileToken('admin')).toBe(sandbox.adminToken);
    const inJob = variables.table(sandbox.db).find((v) => v.group_id !== undefined && v.key === 'SVC_TOKEN')!.value!;
    expect(inJob).toBe(fresh);
    expect((await sandbox.call('GET', '/user', undefined, inJob)).body).toMatchObject({ id: account.id, username: 'svc-cron' });
    expect(await authenticates(token.token)).toBe(false);
  });

  it('the account rotates its own token from cron (self --personal), saved to its profile', async () => {
    const { token } = await accountWithToken('svc-self');
    const p = profiles(token.token);
    await p.login();
    const rotated = await p.run(['-p', 'svc', 'tokens', 'rotate', 'self', '--personal', '--expires-in', '30d', '--yes']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(await authenticates(p.profileToken('svc'))).toBe(true);
    expect(rotated.stdout).not.toContain(p.profileToken('svc'));
    expect(await authenticates(token.token)).toBe(false);
  });

  it('--overlap makes a successor of the same name and scopes; the old token works until the overlap is over', async () => {
    const { account, token } = await accountWithToken('svc-overlap');
    const rotated = await sandbox.run(['tokens', 'rotate', String(token.id), '--service-account', 'svc-overlap', '--overlap', '1d', '--yes', '-o', 'json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json()).toMatchObject({ name: 'cron', scopes: ['api'], user_id: account.id });
    expect(await authenticates(token.token)).toBe(true);
    expect(await authenticates(rotated.json().token)).toBe(true);
  });
});

describe('a group\'s service account\'s tokens (the group\'s Owners)', () => {
  it('are created, listed, rotated and revoked under the group\'s routes', async () => {
    const account = (await sandbox.run(['service-accounts', 'create', '--group', 'acme', '--username', 'acme-cron', '-o', 'json'])).json();
    const flags = ['--service-account', 'acme-cron', '--group', 'acme'];
    const made = (await sandbox.run(['tokens', 'create', ...flags, '--name', 'deploy', '--scopes', 'api', '--expires-in', '60d', '-o', 'json'])).json();
    expect(made).toMatchObject({ user_id: account.id, expires_at: day(60) });
    expect((await sandbox.run(['tokens', 'get', String(made.id), ...flags, '-o', 'json'])).json()).toMatchObject({ id: made.id, name: 'deploy' });

    sandbox.clearRequests();
    const rotated = await sandbox.run(['tokens', 'rotate', String(made.id), ...flags, '--expires-in', '30d', '--yes', '-o', 'json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json()).toMatchObject({ name: 'deploy', user_id: account.id, expires_at: day(30) });
    expect(sandbox.requests().filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([`/api/v4/groups/acme/service_accounts/${account.id}/personal_access_tokens/${made.id}/rotate`]);
    expect(await authenticates(rotated.json().token)).toBe(true);

    const revoked = await sandbox.run(['tokens', 'revoke', String(rotated.json().id), ...flags, '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await authenticates(rotated.json().token)).toBe(false);
    // Not the account of another group, nor the instance's.
    expect((await sandbox.run(['tokens', 'list', '--service-account', 'acme-cron'])).code).toBe(5);
  });
});

describe('tokens audit covers service accounts\' tokens', () => {
  it('--instance names each one by its account, with the command that rotates it', async () => {
    const { token } = await accountWithToken('svc-audited');
    const group = (await sandbox.run(['service-accounts', 'create', '--group', 'acme', '--username', 'acme-audited', '-o', 'json'])).json();
    const groupToken = (await sandbox.run(['tokens', 'create', '--service-account', 'acme-audited', '--group', 'acme', '--name', 'soon', '--scopes', 'api', '--expires-in', '5d', '-o', 'json'])).json();
    const audit = await sandbox.run(['tokens', 'audit', '--instance', '--expiring-within', '40d', '-o', 'json']);
    expect(audit.code, audit.stderr).toBe(9);
    const rows = audit.json() as Array<{ id: number; source: string; fix: string; user_id: number }>;
    expect(rows.find((r) => r.id === token.id)).toMatchObject({ source: 'service account svc-audited', fix: `forgectl tokens rotate ${token.id} --service-account svc-audited --expires-in 90d --output-file token-${token.id}.token --yes` });
    expect(rows.find((r) => r.id === groupToken.id)).toMatchObject({ source: 'service account acme-audited of group acme', user_id: group.id });
    // A personal token has no access level: null, not an empty name.
    expect(rows.find((r) => r.id === token.id)).toMatchObject({ access_level_name: null });
    expect(audit.stderr).toMatch(/the tokens of \d+ service accounts/);

    const byGroup = await sandbox.run(['tokens', 'audit', '--group', 'acme', '--no-personal', '--expiring-within', '40d', '-o', 'json']);
    expect((byGroup.json() as Array<{ id: number }>).map((r) => r.id)).toContain(groupToken.id);
  });

  it('the fix it names runs as written', async () => {
    const { token } = await accountWithToken('svc-fixed');
    const audit = await sandbox.run(['tokens', 'audit', '--instance', '--expiring-within', '40d', '-o', 'json']);
    const fix = (audit.json() as Array<{ id: number; fix: string }>).find((r) => r.id === token.id)!.fix;
    // Its file is named relative to where it runs: here, a folder of the test's own.
    const file = join(tempDir(), `token-${token.id}.token`);
    const ran = await sandbox.run([...fix.split(' ').slice(1).map((word) => (word === `token-${token.id}.token` ? file : word)), '-o', 'json']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.json()).toMatchObject({ name: 'cron', expires_at: day(90) });
    expect(readFileSync(file, 'utf8')).toMatch(/^\S+\n$/);
  });
});
