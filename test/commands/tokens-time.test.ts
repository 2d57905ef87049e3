import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox, type RunOptions } from '../helpers/cli.js';
import { fakeClock } from '../helpers/receiver.js';

/** Overlap windows and unused-token audits, with the sandbox's clock moved instead of waited for. */

const clock = fakeClock(Date.parse('2026-03-02T03:00:00Z'));
const sandbox = useTestSandbox({ now: clock.now });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const day = (plus: number): string => new Date(clock.now().getTime() + plus * DAY).toISOString().slice(0, 10);
const run = (argv: string[], options: RunOptions = {}) => sandbox.run(argv, { now: clock.now, ...options });
const works = async (token: string): Promise<boolean> => (await sandbox.call('GET', '/projects/acme%2Fapi', undefined, token)).status === 200;

/** A config folder whose profile "bot" holds this token (no FORGECTL_TOKEN or FORGECTL_URL). */
async function profileWith(token: string): Promise<{ dir: string; env: Record<string, string | undefined> }> {
  const dir = tempDir();
  const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_TOKEN: undefined, FORGECTL_URL: undefined };
  expect((await run(['auth', 'login', '--profile', 'bot', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: `${token}\n` })).code).toBe(0);
  return { dir, env };
}
const profileToken = (dir: string): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;

describe('tokens rotate --overlap', () => {
  it('--overlap 1d: for a day both tokens work; after it, the next run (on another machine) revokes the old one', async () => {
    const created = await sandbox.call('POST', '/projects/acme%2Fapi/access_tokens', { name: 'overlap-bot', scopes: ['api'], access_level: 40, expires_at: day(300) });
    const first = created.body.token as string;
    const bot = await profileWith(first);
    const rotate = ['-p', 'bot', 'tokens', 'rotate', 'self', '--project', 'acme/api', '--overlap', '1d', '--save-to-profile', '--yes'];

    const one = await run(rotate, { env: bot.env });
    expect(one.code).toBe(0);
    const second = profileToken(bot.dir);
    expect(second).not.toBe(first);
    expect(one.stderr).toMatch(/the old token stays valid until 2026-03-03T03:00:00.000Z/);
    expect(one.stdout + one.stderr).not.toContain(second);
    clock.advance(23 * HOUR);
    expect(await works(first)).toBe(true);
    expect(await works(second)).toBe(true);

    // A run inside the overlap revokes nothing (and makes the next successor).
    const early = tempDir();
    copyFileSync(join(bot.dir, 'config.json'), join(early, 'config.json'));
    const inside = await run(['-p', 'bot', 'tokens', 'rotate', 'self', '--project', 'acme/api', '--overlap', '1d', '--yes', '--dry-run'], { env: { ...bot.env, FORGECTL_CONFIG_DIR: early } });
    expect(inside.code).toBe(0);
    expect(await works(first)).toBe(true);

    // The same cron line a day later, on a machine with no local state but the profile: the pairing comes from the service.
    clock.advance(HOUR + 60_000);
    const fresh = tempDir();
    copyFileSync(join(bot.dir, 'config.json'), join(fresh, 'config.json'));
    const next = await run(rotate, { env: { ...bot.env, FORGECTL_CONFIG_DIR: fresh } });
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/Revoked token \d+ "overlap-bot"/);
    expect(await works(first)).toBe(false);
    expect(await works(second)).toBe(true);
    const third = profileToken(fresh);
    expect(await works(third)).toBe(true);
    const names = await sandbox.call('GET', '/projects/acme%2Fapi/access_tokens?state=active&search=overlap-bot');
    expect(names.body.map((t: { name: string }) => t.name)).toEqual(['overlap-bot', 'overlap-bot']);
  });

  it('is refused for personal tokens, before anything is sent', async () => {
    sandbox.clearRequests();
    const result = await run(['tokens', 'rotate', 'self', '--personal', '--overlap', '1d', '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--overlap works with group and project tokens');
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('tokens audit --unused-for', () => {
  it('finds tokens never used or not used for that long, each with the command that fixes it; exit 9', async () => {
    const idle = await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'idle', scopes: ['api'], access_level: 30, expires_at: day(360) });
    const busy = await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'busy', scopes: ['api'], access_level: 30, expires_at: day(360) });
    expect((await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'idle-2', scopes: ['api'], access_level: 30, expires_at: day(360) })).status).toBe(201);
    clock.advance(50 * DAY);
    expect((await sandbox.call('GET', '/groups/acme', undefined, busy.body.token)).status).toBe(200);
    clock.advance(50 * DAY);

    const audit = await run(['tokens', 'audit', '--group', 'acme', '--unused-for', '90d', '--no-personal', '-o', 'json']);
    expect(audit.code).toBe(9);
    const rows = audit.json<Array<Record<string, unknown>>>();
    const row = rows.find((r) => r.id === idle.body.id);
    expect(row).toMatchObject({ finding: 'never used in 100 days', source: 'group acme', fix: `forgectl tokens revoke ${idle.body.id} --group acme --yes` });
    expect(rows.find((r) => r.id === busy.body.id)).toBeUndefined();
    // Without --expiring-within, --unused-for alone looks only for unused tokens.
    expect(audit.stderr).toContain(`attention: ${rows.length} tokens were unused for 90d`);

    const fix = await run((row!.fix as string).split(' ').slice(1));
    expect(fix.code).toBe(0);
    const again = await run(['tokens', 'audit', '--group', 'acme', '--unused-for', '90d', '--no-personal', '-o', 'json']);
    expect(again.json<Array<{ id: number }>>().map((r) => r.id)).not.toContain(idle.body.id);
  });

  it('--instance includes impersonation and deploy tokens, named as such, with the command that revokes them', async () => {
    const made = await sandbox.call('POST', '/users/1/impersonation_tokens', { name: 'support', scopes: ['api'], expires_at: day(5) });
    expect(made.status).toBe(201);
    const deploy = await sandbox.call('POST', '/projects/acme%2Fapi/deploy_tokens', { name: 'pull-soon', scopes: ['read_repository'], expires_at: day(5) });
    expect(deploy.status).toBe(201);
    for (const personal of [[], ['--no-personal']]) {
      const audit = await run(['tokens', 'audit', '--instance', '--expiring-within', '10d', ...personal, '-o', 'json']);
      expect(audit.code).toBe(9);
      expect(audit.json()).toContainEqual(expect.objectContaining({
        id: made.body.id, source: 'impersonation root', finding: 'expires in 5 days', fix: `forgectl tokens revoke ${made.body.id} --personal --user root --impersonation --yes`,
      }));
      expect(audit.json()).toContainEqual(expect.objectContaining({
        id: deploy.body.id, name: 'pull-soon', source: 'deploy token, project acme/api', finding: 'expires in 5 days', fix: `forgectl deploy-tokens revoke ${deploy.body.id} --project acme/api --yes`,
      }));
      expect(audit.stderr).toMatch(/, their deploy tokens, the tokens of \d+ service accounts? and the impersonation tokens of \d+ users/);
    }
  });
});
