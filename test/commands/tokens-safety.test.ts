import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

/**
 * The safety tier of every command that revokes or rotates a token: off a terminal it needs --yes (exit 2, nothing
 * changed, the question naming the token); at a terminal it asks, naming the token, and "no" changes nothing.
 */

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
/** Requests that change something (lookups by POST, as tokens identify makes, change nothing). */
const changes = () => sandbox.requests().filter((r) => r.method !== 'GET' && !/\/admin\/token$|\/runners\/verify$/.test(r.path));
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');
const works = async (token: string): Promise<boolean> => (await sandbox.call('GET', '/groups/acme/access_tokens/self', undefined, token)).status === 200;

async function groupToken(name: string): Promise<{ id: number; token: string }> {
  const created = await sandbox.call('POST', '/groups/acme/access_tokens', { name, scopes: ['api'], access_level: 40, expires_at: day(40) });
  expect(created.status).toBe(201);
  return created.body as { id: number; token: string };
}

describe('commands that revoke or rotate a token ask first, naming it', () => {
  it.each([
    ['tokens revoke', (id: number) => ['tokens', 'revoke', String(id), '--group', 'acme'], (id: number) => `Revoke token ${id} of group acme?`],
    ['tokens rotate', (id: number) => ['tokens', 'rotate', String(id), '--group', 'acme'], (id: number) => `Rotate token ${id} of group acme (the old token stops working at once)?`],
  ])('%s: off a terminal without --yes, exit 2 before any request; at a terminal the question names it, "no" keeps it', async (_name, argv, offTerminal) => {
    const name = `safety-${_name.replace(' ', '-')}`;
    const bot = await groupToken(name);
    sandbox.clearRequests();
    const refused = await sandbox.run(argv(bot.id));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: confirmation needed: ${offTerminal(bot.id)}`);
    expect(refused.stderr).toContain('hint: pass --yes');
    expect(sandbox.requests()).toEqual([]);

    const declined = await sandbox.run(argv(bot.id), { tty: true, input: 'n\n' });
    expect(declined.code).toBe(2);
    expect(plain(declined.stderr)).toMatch(new RegExp(`token "${name}" \\(id ${bot.id}, scopes api, expires ${day(40)}\\) of group acme`));
    expect(declined.stderr).toContain('aborted');
    expect(changes()).toEqual([]);
    expect(await works(bot.token)).toBe(true);
  });

  it('tokens rotate self without saying what the token in use is: exit 2 before any request, the hint says how to tell', async () => {
    sandbox.clearRequests();
    const bare = await sandbox.run(['tokens', 'rotate', 'self', '--yes']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('error: which tokens? pass --group ID|PATH, --project ID|PATH, --personal or --service-account NAME\n');
    expect(bare.stderr).toContain('hint: self is the token in use: --personal for a personal token, --group G or --project P');
    expect(sandbox.requests()).toEqual([]);
  });

  it('tokens rotate --save-to-profile NAME of another instance: exit 2 before any request (the token would go to that host)', async () => {
    const bot = await groupToken('safety-other-instance');
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { elsewhere: { url: 'https://git.elsewhere.example.com', token: 'glpat-of-elsewhere-0000' } } }), { mode: 0o600 });
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--save-to-profile', 'elsewhere', '--yes'], { env: { FORGECTL_CONFIG_DIR: dir } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: --save-to-profile elsewhere: that profile is for https://git.elsewhere.example.com, and the token is of ${sandbox.rootUrl}\n`);
    expect(sandbox.requests()).toEqual([]);
    expect(await works(bot.token)).toBe(true);
  });

  it('tokens identify --revoke: off a terminal without --yes, exit 2 naming the token, nothing revoked', async () => {
    const bot = await groupToken('safety-identify');
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'identify', '--revoke'], { input: `${bot.token}\n` });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: confirmation needed: Revoke .*"safety-identify".*\?/m);
    expect(changes()).toEqual([]);
    expect(await works(bot.token)).toBe(true);
  });

  it('runners reset-token: off a terminal without --yes, exit 2 naming the runner, the old token still verifies', async () => {
    const runner = (await sandbox.call('POST', '/user/runners', { runner_type: 'group_type', group_id: 'acme', description: 'safety-runner' })).body as { id: number; token: string };
    sandbox.clearRequests();
    const refused = await sandbox.run(['runners', 'reset-token', String(runner.id)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^error: confirmation needed: Reset the authentication token of .*${runner.id}.*safety-runner`, 'm'));
    expect(changes()).toEqual([]);
    const declined = await sandbox.run(['runners', 'reset-token', String(runner.id)], { tty: true, input: 'n\n' });
    expect(declined.code).toBe(2);
    expect(changes()).toEqual([]);
    expect((await sandbox.call('POST', '/runners/verify', { token: runner.token })).status).toBe(200);
  });

  it('deploy-tokens revoke: off a terminal without --yes, exit 2 naming the token, it still exists', async () => {
    const made = (await sandbox.call('POST', '/projects/acme%2Fapi/deploy_tokens', { name: 'safety-deploy', scopes: ['read_repository'] })).body as { id: number };
    sandbox.clearRequests();
    const refused = await sandbox.run(['deploy-tokens', 'revoke', String(made.id), '--project', 'acme/api']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`error: confirmation needed: Revoke deploy token ${made.id} ("safety-deploy"`);
    expect(changes()).toEqual([]);
    const declined = await sandbox.run(['deploy-tokens', 'revoke', String(made.id), '--project', 'acme/api'], { tty: true, input: 'n\n' });
    expect(declined.code).toBe(2);
    expect(changes()).toEqual([]);
    expect((await sandbox.call('GET', `/projects/acme%2Fapi/deploy_tokens/${made.id}`)).status).toBe(200);
  });
});
