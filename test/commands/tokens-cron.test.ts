import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenLockPath } from '../../src/commands/tokens/rotation.js';
import { BIN, runBin, startBin as startQuietBin, tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';

/**
 * Rotation from cron with real processes (the built CLI, as cron runs it: no terminal). Run `node scripts/build.mjs`
 * first; `npm test` does.
 */

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
const rotateSelf = ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes'];
const tokenStatus = (value: string) => fetch(`${sandbox.rootUrl}/api/v4/groups/acme/access_tokens/self`, { headers: { 'PRIVATE-TOKEN': value } }).then((r) => r.status);
const profileToken = (dir: string): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;
const rotatePosts = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/rotate'));
const recoveryFiles = (dir: string): string[] => (existsSync(join(dir, 'recovery')) ? readdirSync(join(dir, 'recovery')) : []);
const until = async (condition: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 1500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`timed out waiting for ${what}`);
};

/** A group token created as root. */
async function createToken(name = 'cron-bot'): Promise<{ id: number; token: string }> {
  const created = await runBin(
    ['tokens', 'create', '--group', 'acme', '--name', name, '--scopes', 'api', '--access-level', 'maintainer', '--expires-at', day(60), '-o', 'json', '--yes'],
    { env: sandbox.env() as Record<string, string> },
  );
  expect(created.code).toBe(0);
  const { id, token } = created.json<{ id: number; token: string }>();
  expect(token).toMatch(/^glpat-/);
  return { id, token };
}

async function login(dir: string, token: string): Promise<void> {
  const result = await runBin(['auth', 'login', '--profile', 'bot', '--url', sandbox.rootUrl, '--token-stdin'], { env: { FORGECTL_CONFIG_DIR: dir }, input: `${token}\n` });
  expect(result.code).toBe(0);
}

/** `tokens create` as root, then `auth login` of profile "bot" with the new token in a fresh config folder. */
async function botProfile(): Promise<{ id: number; token: string; dir: string; env: Record<string, string> }> {
  const { id, token } = await createToken();
  const dir = tempDir();
  await login(dir, token);
  return { id, token, dir, env: { FORGECTL_CONFIG_DIR: dir } };
}

/** The built CLI as a child process (no terminal) that a test can signal while it runs. */
function startBin(argv: string[], env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [BIN, ...argv], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<RunResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
  return { child, done };
}

/** Starts the bot's rotation with its answer held back `ms` after processing; resolves once the request was processed. */
async function rotationInFlight(env: Record<string, string>, ms: number): Promise<ReturnType<typeof startBin>> {
  sandbox.clearRequests();
  sandbox.fault({ method: 'POST', path: '/rotate$', answer_latency_ms: ms });
  const running = startBin(rotateSelf, env);
  await until(() => rotatePosts().length === 1, 'the rotate request');
  return running;
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
    // The rotation is slow enough for the two runs to overlap however their start-up times differ.
    sandbox.fault({ method: 'POST', path: '/rotate$', answer_latency_ms: 1000 });
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
    // The recovery file is created (empty) before the request is sent and filled the moment the answer arrives.
    const filled = () => existsSync(recoveryDir) && readdirSync(recoveryDir).some((n) => n.endsWith('.json') && statSync(join(recoveryDir, n)).size > 0);
    await until(filled, 'the recovery file to hold the new token');
    child.kill('SIGKILL');
    await exited;
    rmSync(configLock);

    const [name] = readdirSync(recoveryDir).filter((n) => n.endsWith('.json'));
    const recovered = JSON.parse(readFileSync(join(recoveryDir, name), 'utf8')).token.token as string;
    expect(await tokenStatus(recovered)).toBe(200);
    expect(profileToken(bot.dir)).toBe(bot.token);
    expect(await tokenStatus(bot.token)).toBe(401);

    // Another job using the profile meanwhile is pointed at the recovery, not at making a new token.
    const other = await runBin(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme'], { env: bot.env });
    expect(other.code).toBe(4);
    expect(other.stderr).toContain(`hint: a token rotation did not finish, and its new token is kept in ${recoveryDir}: see forgectl tokens recover --list`);

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

describe('a crontab line ending in >/dev/null 2>&1', () => {
  it('a rotation, a creation, a runner token reset or a recovery that would only print the new token to /dev/null stops before sending', async () => {
    const { id, token } = await createToken('null-bot');
    sandbox.clearRequests();
    const admin = sandbox.env() as Record<string, string>;
    for (const argv of [
      ['tokens', 'rotate', String(id), '--group', 'acme', '--yes'],
      ['tokens', 'create', '--group', 'acme', '--name', 'lost', '--scopes', 'api', '--expires-in', '30d'],
      ['runners', 'reset-token', '7', '--yes'],
    ]) {
      const run = startQuietBin(argv, admin); // stdout: /dev/null
      expect(await run.exited, run.stderr()).toBe(2);
      expect(run.stderr()).toContain('error: stdout is /dev/null, and the new token is shown only this once: it would be lost; nothing was sent');
    }
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await tokenStatus(token)).toBe(200);
    // A recovery file whose rotation had no target hands its token over on stdout: not to /dev/null, where it would
    // be gone with its file.
    const dir = tempDir();
    mkdirSync(join(dir, 'recovery'), { mode: 0o700 });
    const record = join(dir, 'recovery', `group-0-${id}-kept.json`);
    const fresh = await createToken('null-bot-2');
    writeFileSync(record, JSON.stringify({ version: 1, created_at: new Date().toISOString(), instance: sandbox.rootUrl, kind: 'group', resource: 'acme', rotated_token_id: id, rotated_token_sha256: null, targets: {}, previous: {}, token: { ...fresh, name: 'null-bot-2' } }), { mode: 0o600 });
    const recover = startQuietBin(['tokens', 'recover'], { ...admin, FORGECTL_CONFIG_DIR: dir });
    expect(await recover.exited, recover.stderr()).toBe(2);
    expect(recover.stderr()).toContain('error: stdout is /dev/null, and the new token is shown only this once');
    expect(existsSync(record)).toBe(true);
    const handed = await runBin(['tokens', 'recover', '-o', 'json'], { env: { ...admin, FORGECTL_CONFIG_DIR: dir } });
    expect(handed.code, handed.stderr).toBe(0);
    expect(handed.json()[0].token).toBe(fresh.token);
    expect(existsSync(record)).toBe(false);

    // Saved to a file, stdout may go anywhere.
    const file = join(tempDir(), 'null-bot.token');
    const saved = startQuietBin(['tokens', 'rotate', String(id), '--group', 'acme', '--output-file', file, '--yes'], admin);
    expect(await saved.exited, saved.stderr()).toBe(0);
    expect(await tokenStatus(readFileSync(file, 'utf8').trim())).toBe(200);
  });
});

describe('rotate self racing rotate <id> of the same token', () => {
  it('reads the token again after its last lock: a by-id rotation in between makes it stop, and the family survives', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    // The self run's first read of the token is answered late: processed now, the answer held back.
    sandbox.fault({ method: 'GET', path: 'access_tokens/self$', answer_latency_ms: 1500 });
    const self = startBin(rotateSelf, bot.env);
    await until(() => sandbox.requests().some((r) => r.method === 'GET' && r.path.endsWith('/access_tokens/self')), 'the self run to read its token');

    // Meanwhile an administrator rotates the same token by id into the same profile, the URL spelled differently.
    const byId = await runBin(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--save-to-profile', 'bot', '--yes'], {
      env: { ...bot.env, FORGECTL_URL: `${sandbox.rootUrl.replace('127.0.0.1', 'localhost')}/api/v4/`, FORGECTL_TOKEN: sandbox.adminToken },
    });
    expect(byId.code).toBe(0);
    const fresh = profileToken(bot.dir);
    expect(fresh).not.toBe(bot.token);

    const result = await self.done;
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/already rotated by another run/);
    expect(rotatePosts()).toHaveLength(1); // only the by-id run's: the revoked token was never presented to rotate
    expect(await tokenStatus(fresh)).toBe(200);
    expect(profileToken(bot.dir)).toBe(fresh);
  });

  it('locks name the instance, not the URL as written: a by-id run via localhost waits for a self run via 127.0.0.1', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', latency_ms: 1500 });
    const self = startBin(rotateSelf, bot.env);
    const locks = join(bot.dir, 'locks');
    await until(() => existsSync(locks) && readdirSync(locks).filter((n) => n.endsWith('.lock')).length === 2, 'the self run to hold both locks');

    for (const url of [`${sandbox.rootUrl.replace('127.0.0.1', 'localhost')}/`, `${sandbox.rootUrl}/api/v4`]) {
      const byId = await runBin(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes'], { env: { ...bot.env, FORGECTL_URL: url, FORGECTL_TOKEN: sandbox.adminToken } });
      expect(byId.code).toBe(6);
      expect(byId.stderr).toMatch(/another forgectl run is rotating/);
    }
    const result = await self.done;
    expect(result.code).toBe(0);
    expect(rotatePosts()).toHaveLength(1);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
  });
});

describe('the new token reaches the recovery file the moment its bytes arrive', () => {
  it('an answer cut off after the token arrived is no lockout: the token is saved from the bytes that came', async () => {
    const bot = await botProfile();
    sandbox.fault({ method: 'POST', path: '/rotate$', drop: 'body' });
    const result = await runBin(rotateSelf, { env: bot.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/answer .* cut short/);
    const fresh = profileToken(bot.dir);
    expect(fresh).not.toBe(bot.token);
    expect(await tokenStatus(fresh)).toBe(200);
    expect(recoveryFiles(bot.dir)).toEqual([]);
  });
});

describe('lock files left by dead processes', () => {
  const onLinux = existsSync('/proc/self/stat') && existsSync('/proc/sys/kernel/random/boot_id');
  const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const startTime = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[19];

  async function rotateWithLock(content: string, mtime?: Date): Promise<{ result: RunResult; lock: string }> {
    const { id } = await createToken();
    const dir = tempDir();
    const lock = tokenLockPath(dir, sandbox.rootUrl, id);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, content);
    if (mtime) utimesSync(lock, mtime, mtime);
    const result = await runBin(['tokens', 'rotate', String(id), '--group', 'acme', '--yes', '-o', 'json'], { env: sandbox.env({ FORGECTL_CONFIG_DIR: dir }) as Record<string, string> });
    return { result, lock };
  }

  it.skipIf(!onLinux)('takes over a lock whose pid now belongs to another live process (pid reused after a restart)', async () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      // The pid is alive, but it is not the process that wrote the lock: its start time differs.
      const { result, lock } = await rotateWithLock(`${sleeper.pid} 1 ${bootId()}\n`);
      expect(result.code).toBe(0);
      expect(existsSync(lock)).toBe(false);
    } finally {
      sleeper.kill();
    }
  });

  it.skipIf(!onLinux)('takes over a lock written before the last boot, and keeps a lock of the same live process', async () => {
    const rebooted = await rotateWithLock(`${process.pid} ${startTime(process.pid)} 00000000-0000-0000-0000-000000000000\n`);
    expect(rebooted.result.code).toBe(0);
    const held = await rotateWithLock(`${process.pid} ${startTime(process.pid)} ${bootId()}\n`);
    expect(held.result.code).toBe(6);
    expect(existsSync(held.lock)).toBe(true);
  });

  it('an empty lock file is being written by its owner: not taken over at once, but once it is old', async () => {
    const fresh = await rotateWithLock('');
    expect(fresh.result.code).toBe(6);
    const old = await rotateWithLock('', new Date(Date.now() - 120_000));
    expect(old.result.code).toBe(0);
  });
});

describe('recovery files whose token is already saved', () => {
  it('a check that fails after a successful save has its own exit code (9), and leaves no recovery file behind', async () => {
    const bot = await botProfile();
    // The check as the new token fails; the by-id read of the token is a different path.
    sandbox.fault({ method: 'GET', path: 'access_tokens/self$', status: 503 });
    const result = await runBin(['--retries', '0', 'tokens', 'rotate', String(bot.id), '--group', 'acme', '--save-to-profile', 'bot', '--yes'], {
      env: { ...bot.env, FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken },
    });
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/rotated and saved to profile "bot", but the check as the new token failed/);
    expect(result.stderr).not.toMatch(/unknown/);
    expect(recoveryFiles(bot.dir)).toEqual([]);

    // The next cron run rotates the saved token; nothing is left to raise alarms or give wrong advice.
    expect((await runBin(rotateSelf, { env: bot.env })).code).toBe(0);
    expect((await runBin(['tokens', 'recover', '--list'], { env: bot.env })).code).toBe(0);
    const recover = await runBin(['-p', 'bot', 'tokens', 'recover'], { env: bot.env });
    expect(recover.code).toBe(0);
    expect(recover.stderr).not.toMatch(/create a new token/i);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
  });

  it('killed after the save while checking: no recovery file is left, later runs are clean', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: 'access_tokens/self$', answer_latency_ms: 20_000 });
    const byId = startBin(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--save-to-profile', 'bot', '--yes'], { ...bot.env, FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken });
    await until(() => sandbox.requests().some((r) => r.method === 'GET' && r.path.endsWith('/access_tokens/self')), 'the check as the new token');
    byId.child.kill('SIGKILL');
    await byId.done;
    expect(profileToken(bot.dir)).not.toBe(bot.token);

    expect((await runBin(rotateSelf, { env: bot.env })).code).toBe(0);
    expect((await runBin(['tokens', 'recover', '--list'], { env: bot.env })).code).toBe(0);
    const recover = await runBin(['-p', 'bot', 'tokens', 'recover'], { env: bot.env });
    expect(recover.code).toBe(0);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
  });

  /** Exit 10: the profile cannot be written while the rotate request is in flight; the token waits in a recovery file. */
  async function rotatedNotSaved(bot: Awaited<ReturnType<typeof botProfile>>): Promise<{ file: string; recovered: string }> {
    const config = join(bot.dir, 'config.json');
    const saved = readFileSync(config, 'utf8');
    const running = await rotationInFlight(bot.env, 500);
    rmSync(config);
    mkdirSync(config);
    const result = await running.done;
    expect(result.code).toBe(10);
    rmSync(config, { recursive: true });
    writeFileSync(config, saved, { mode: 0o600 });
    const [name] = recoveryFiles(bot.dir);
    const file = join(bot.dir, 'recovery', name);
    return { file, recovered: JSON.parse(readFileSync(file, 'utf8')).token.token as string };
  }

  it('a recovery file whose token the profile now holds is finished: removed, no alarm', async () => {
    const bot = await botProfile();
    const { file, recovered } = await rotatedNotSaved(bot);
    await login(bot.dir, recovered); // saved by hand
    const list = await runBin(['tokens', 'recover', '--list'], { env: bot.env });
    expect(list.code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  it('a recovery file superseded by a newer token in the profile is finished: the newer token is never overwritten', async () => {
    const bot = await botProfile();
    const { file } = await rotatedNotSaved(bot);
    const newer = await createToken('cron-bot-2');
    await login(bot.dir, newer.token); // the administrator gave the bot a new token instead
    const list = await runBin(['tokens', 'recover', '--list'], { env: bot.env });
    expect(list.code).toBe(0);
    const recover = await runBin(['-p', 'bot', 'tokens', 'recover'], { env: bot.env });
    expect(recover.code).toBe(0);
    expect(profileToken(bot.dir)).toBe(newer.token);
    expect(existsSync(file)).toBe(false);
  });
});

describe('signals while rotating', () => {
  it('SIGTERM while the rotate request is in flight and no answer comes: the outcome-unknown steps, exit 143', async () => {
    const bot = await botProfile();
    const running = await rotationInFlight(bot.env, 10_000);
    running.child.kill('SIGTERM');
    const result = await running.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(/interrupted \(SIGTERM\)/);
    expect(result.stderr).toMatch(/outcome of rotating .* is unknown/);
    expect(result.stderr).toMatch(/forgectl -p bot tokens get self --group acme/);
  });

  it('SIGINT while in flight, answer within the grace period: the recovery file is written, exit 130, the next run saves it', async () => {
    const bot = await botProfile();
    const running = await rotationInFlight(bot.env, 700);
    running.child.kill('SIGINT');
    const result = await running.done;
    expect(result.code).toBe(130);
    const [name] = recoveryFiles(bot.dir);
    expect(result.stderr).toContain(join(bot.dir, 'recovery', name));
    const recovered = JSON.parse(readFileSync(join(bot.dir, 'recovery', name), 'utf8')).token.token as string;
    expect(result.stdout + result.stderr).not.toContain(recovered);

    const next = await runBin(rotateSelf, { env: bot.env });
    expect(next.code).toBe(0);
    expect(profileToken(bot.dir)).toBe(recovered);
    expect(rotatePosts()).toHaveLength(1);
  });

  it('SIGTERM before the rotate request was sent: exit 143, nothing sent, no lock left', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'GET', path: 'access_tokens/self$', answer_latency_ms: 10_000 });
    const running = startBin(rotateSelf, bot.env);
    await until(() => sandbox.requests().some((r) => r.path.endsWith('/access_tokens/self')), 'the read of the token');
    running.child.kill('SIGTERM');
    const result = await running.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toMatch(/nothing was sent/);
    expect(readdirSync(join(bot.dir, 'locks')).filter((n) => n.endsWith('.lock'))).toEqual([]);
    expect(rotatePosts()).toEqual([]);
  });
});

describe('nowhere to keep the new token', () => {
  it('the save fails and the recovery folder is unwritable too: the token goes to stdout, exit 10', async () => {
    const bot = await botProfile();
    const config = join(bot.dir, 'config.json');
    const saved = readFileSync(config, 'utf8');
    const running = await rotationInFlight(bot.env, 500);
    rmSync(config);
    mkdirSync(config);
    rmSync(join(bot.dir, 'recovery'), { recursive: true });
    writeFileSync(join(bot.dir, 'recovery'), '');
    const result = await running.done;
    rmSync(config, { recursive: true });
    writeFileSync(config, saved, { mode: 0o600 });
    expect(result.code).toBe(10);
    expect(result.stdout).toMatch(/^glpat-\S+\n$/);
    expect(await tokenStatus(result.stdout.trim())).toBe(200);
    expect(result.stderr).toMatch(/printed on stdout/);
  });
});

describe('a rotation into a CI/CD variable, run as a CI job would (the token comes from the variable)', () => {
  /** A group token, and a masked visible variable of acme holding it (what the job is handed as FORGECTL_TOKEN). */
  async function jobBot(key: string) {
    const { token } = await createToken(`job-${key.toLowerCase()}`);
    const made = await sandbox.call('POST', '/groups/acme/variables', { key, value: token, masked: true, protected: true, raw: true });
    expect(made.status).toBe(201);
    const dir = tempDir();
    const env = (value: string) => ({ FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: value });
    const variable = async (): Promise<string> => (await sandbox.call('GET', `/groups/acme/variables/${key}`)).body.value as string;
    return { token, dir, env, variable, argv: ['tokens', 'rotate', 'self', '--group', 'acme', '--save-to', `ci-var:acme/${key}`, '--yes'] };
  }

  it('killed after the answer, before the variable was written: the next job (given the old token) finishes it, nothing rotated again', async () => {
    const job = await jobBot('KILLED_JOB_TOKEN');
    // The variable's write is slow: the run is killed while it waits, with the new token in its recovery file.
    sandbox.fault({ method: 'PUT', path: 'variables/KILLED_JOB_TOKEN', latency_ms: 10_000 });
    const running = startBin(job.argv, job.env(job.token));
    const recoveryDir = join(job.dir, 'recovery');
    const filled = () => existsSync(recoveryDir) && readdirSync(recoveryDir).some((n) => n.endsWith('.json') && statSync(join(recoveryDir, n)).size > 0);
    await until(filled, 'the recovery file to hold the new token');
    running.child.kill('SIGKILL');
    await running.done;
    await fetch(`${sandbox.url}/-/sandbox/faults`, { method: 'DELETE' });
    expect(await job.variable()).toBe(job.token);
    expect(await tokenStatus(job.token)).toBe(401);

    // The next scheduled job is handed the variable as it is: the revoked token.
    sandbox.clearRequests();
    const next = await runBin(job.argv, { env: job.env(await job.variable()) });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('finishing it from');
    expect(rotatePosts()).toEqual([]);
    const fresh = await job.variable();
    expect(fresh).not.toBe(job.token);
    expect(await tokenStatus(fresh)).toBe(200);
    expect(readdirSync(recoveryDir)).toEqual([]);
  });

  it('a revoked token with no recovery file: exit 4 before anything is sent, the hint names tokens recover and what exit 8 leaves', async () => {
    const job = await jobBot('REVOKED_JOB_TOKEN');
    expect((await sandbox.call('POST', '/groups/acme/access_tokens/self/rotate', {}, job.token)).status).toBe(200);
    sandbox.clearRequests();
    const result = await runBin(job.argv, { env: job.env(job.token) });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^hint: .*the new token waits in a recovery file: forgectl tokens recover --list\. If one ended with exit 8 \(outcome unknown\), no file holds its new token and it cannot be recovered: check the token's state/m);
    expect(rotatePosts()).toEqual([]);
  });
});

describe('a rotation stopped while it saves the new token', () => {
  it('SIGTERM while a CI/CD variable is written: exit 143 saying what is saved, what is not, and the recovery file; recover finishes it', async () => {
    const bot = await botProfile();
    const out = tempDir();
    sandbox.fault({ method: 'POST', path: 'variables$', latency_ms: 5000 });
    const running = startBin(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to', 'ci-var:acme/STOPPED_TOKEN', '--save-to', `exec:cat > ${out}/token`, '--yes'], bot.env);
    await until(() => profileToken(bot.dir) !== bot.token, 'the profile to hold the new token');
    running.child.kill('SIGTERM');
    const result = await running.done;
    await fetch(`${sandbox.url}/-/sandbox/faults`, { method: 'DELETE' });
    expect(result.code).toBe(143);
    const [file] = recoveryFiles(bot.dir).filter((n) => n.endsWith('.json'));
    expect(result.stderr).toMatch(new RegExp(`^error: interrupted \\(SIGTERM\\) while saving the new token \\d+: saved to profile "bot"; still being written: CI/CD variable STOPPED_TOKEN of group acme \\(not known whether it was\\); not written: helper cat > ${out}/token; the new token is in the recovery file ${join(bot.dir, 'recovery', file)} \\(mode 0600\\)$`, 'm'));
    expect(result.stderr).toMatch(/^hint: run forgectl tokens recover .* to write what is left/m);
    expect(result.stdout + result.stderr).not.toContain(profileToken(bot.dir));

    const recovered = await runBin(['-p', 'bot', 'tokens', 'recover'], { env: bot.env });
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(readFileSync(join(out, 'token'), 'utf8')).toBe(`${profileToken(bot.dir)}\n`);
    expect(recoveryFiles(bot.dir)).toEqual([]);
  });
});

describe('recovery placeholders left by runs killed in flight', () => {
  it('empty ones are removed once no live run holds their token; one that holds anything is never removed', async () => {
    const bot = await botProfile();
    const dir = join(bot.dir, 'recovery');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const prefix = (id: number) => `group-${tokenLockPath(bot.dir, sandbox.rootUrl, id).match(/rotate-([0-9a-f]{12})-/)![1]}-${id}-`;
    const abandoned = `${prefix(9001)}2026-01-01T03-00-00-000Z.json`;
    const inFlight = `${prefix(9002)}2026-01-01T03-00-00-000Z.json`;
    const partial = `${prefix(9003)}2026-01-01T03-00-00-000Z.json`;
    for (const name of [abandoned, inFlight]) writeFileSync(join(dir, name), '', { mode: 0o600 });
    writeFileSync(join(dir, partial), '{"version":1,"tok', { mode: 0o600 });
    // A live run holds token 9002: its empty file may be filled any moment.
    const lock = tokenLockPath(bot.dir, sandbox.rootUrl, 9002);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, `${process.pid}\n`);
    const result = await runBin(rotateSelf, { env: bot.env });
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([inFlight, partial].sort());
    rmSync(lock);
    expect((await runBin(['tokens', 'recover', '--list'], { env: bot.env })).code).toBe(0);
    expect(readdirSync(dir)).toEqual([partial]);
  });
});
