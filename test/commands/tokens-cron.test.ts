import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin, tempDir, useTestSandbox } from '../helpers/cli.js';

/**
 * Rotation from cron with real processes (the built CLI, as cron runs it: no terminal). Run `node scripts/build.mjs`
 * first; `npm test` does.
 */

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
const rotateSelf = ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes'];
const tokenStatus = (value: string) => fetch(`${sandbox.rootUrl}/api/v4/groups/acme/access_tokens/self`, { headers: { 'PRIVATE-TOKEN': value } }).then((r) => r.status);
const profileToken = (dir: string): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;

/** `tokens create` as root, then `auth login` of profile "bot" with the new token in a fresh config folder. */
async function botProfile(): Promise<{ token: string; dir: string; env: Record<string, string> }> {
  const created = await runBin(
    ['tokens', 'create', '--group', 'acme', '--name', 'cron-bot', '--scopes', 'api', '--access-level', 'maintainer', '--expires-at', day(60), '-o', 'json', '--yes'],
    { env: sandbox.env() as Record<string, string> },
  );
  expect(created.code).toBe(0);
  const token = created.json<{ token: string }>().token;
  expect(token).toMatch(/^glpat-/);
  const dir = tempDir();
  const env = { FORGECTL_CONFIG_DIR: dir };
  const login = await runBin(['auth', 'login', '--profile', 'bot', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: `${token}\n` });
  expect(login.code).toBe(0);
  return { token, dir, env };
}

describe('rotation from cron (real processes)', () => {
  it('rotates the profile\'s own token without a terminal and never shows the new value', async () => {
    const bot = await botProfile();
    const result = await runBin(rotateSelf, { env: bot.env });
    expect(result.code).toBe(0);
    const fresh = profileToken(bot.dir);
    expect(fresh).not.toBe(bot.token);
    expect(result.stdout).not.toContain(fresh);
    expect(result.stderr).not.toContain(fresh);
    expect(await tokenStatus(bot.token)).toBe(401);
    const self = await runBin(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme', '-o', 'json'], { env: bot.env });
    expect(self.code).toBe(0);
    expect(self.json()).toMatchObject({ name: 'cron-bot', active: true });
  });

  it('two rotations started at the same moment: one exits 0, the other 6, and the token still works', async () => {
    const bot = await botProfile();
    const results = await Promise.all([runBin(rotateSelf, { env: bot.env }), runBin(rotateSelf, { env: bot.env })]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 6]);
    expect(results.find((r) => r.code === 6)!.stderr).toMatch(/another forgectl run|already rotated by another run/);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
    // The family survived: no reuse detection was triggered.
    expect((await runBin(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme'], { env: bot.env })).code).toBe(0);
  });

  it('a crash between the response and the save leaves the token recoverable, and the next run finishes the save', async () => {
    const bot = await botProfile();
    // Holding the config lock as a live process makes the save wait; the child is killed while it waits.
    const configLock = join(bot.dir, 'config.lock');
    writeFileSync(configLock, `${process.pid}\n`);
    const child = spawn(process.execPath, [BIN, ...rotateSelf], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...bot.env }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const recoveryDir = join(bot.dir, 'recovery');
    for (let i = 0; i < 1000 && !(existsSync(recoveryDir) && readdirSync(recoveryDir).some((n) => n.endsWith('.json'))); i++) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    await exited;
    rmSync(configLock);

    const [name] = readdirSync(recoveryDir).filter((n) => n.endsWith('.json'));
    const recovered = JSON.parse(readFileSync(join(recoveryDir, name), 'utf8')).token.token as string;
    expect(await tokenStatus(recovered)).toBe(200);
    expect(profileToken(bot.dir)).toBe(bot.token);
    expect(await tokenStatus(bot.token)).toBe(401);

    // The next cron run neither rotates again nor trips reuse detection: it saves the recovered token.
    sandbox.clearRequests();
    const next = await runBin(rotateSelf, { env: bot.env });
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/interrupted/);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    expect(profileToken(bot.dir)).toBe(recovered);
    expect(readdirSync(recoveryDir)).toEqual([]);
    expect(await tokenStatus(recovered)).toBe(200);
  });
});
