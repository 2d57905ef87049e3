/**
 * Tokens in the OS keyring, for real: the built CLI as processes against a private Secret Service (gnome-keyring on
 * its own D-Bus session bus) and the sandbox. Login, a command, rotation into the keyring, a keyring that goes away
 * mid-rotation (exit 10, recovery file), logout, migrate, and the fallbacks: no terminal, CI=true, no service, a
 * broken native binding.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, BUILT, runBin, tempDir, useTestSandbox, type RunResult } from '../helpers/cli.js';
import { startSecretService, type SecretService } from '../helpers/keyring.js';
import { missingPrograms, needs, ptyRunner, SECRET_SERVICE } from '../helpers/system.js';
import { ROOT, runProcess } from './package.js';

const pty = ptyRunner();

const config = (dir: string): { current?: string; profiles: Record<string, Record<string, string>> } => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

/** Asks the keyring directly (through the binding, in a process on the test bus) what an entry holds. */
async function keyringHolds(service: SecretService, account: string): Promise<string | null> {
  const script = `const { Entry } = require('@napi-rs/keyring'); process.stdout.write(JSON.stringify(new Entry('forgectl', process.argv[1], { linux: { store: 'secret-service' } }).getPassword() ?? null));`;
  const result = await runProcess(process.execPath, ['-e', script, account], { env: { PATH: process.env.PATH, ...service.env }, cwd: ROOT });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as string | null;
}

// Each case is skipped, saying why, where no Secret Service can be started (.ci/run installs one and must run them).
describe.skipIf(!BUILT)('tokens in the OS keyring (Secret Service)', () => {
  const sandbox = useTestSandbox();
  let service: SecretService;
  beforeAll(async () => {
    if (!missingPrograms(...SECRET_SERVICE)) service = await startSecretService();
  }, 30_000);
  beforeEach((context) => needs(context, ...SECRET_SERVICE));
  afterAll(() => service?.stop());

  const cli = (dir: string, argv: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> =>
    runBin(argv, { env: { FORGECTL_CONFIG_DIR: dir, ...service.env, ...extra }, input });
  /** A shell line on a pseudo-terminal (stdout and stderr both arrive in stdout). */
  const onTerminal = (line: string, env: Record<string, string | undefined>) => {
    const [command, args] = pty!(line);
    return runProcess(command, args, { env: { PATH: process.env.PATH, TERM: 'dumb', ...env } as NodeJS.ProcessEnv, timeoutMs: 30_000 });
  };
  const login = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} auth login --token-stdin`;

  it('login --keyring leaves no token in the config file; commands, rotation into the keyring and logout work', async () => {
    const dir = tempDir();
    const token = sandbox.tokenWithRole('developer');
    const loggedIn = await cli(dir, ['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], {}, `${token}\n`);
    expect(loggedIn.stderr).toContain('token saved in the OS keyring');
    expect(loggedIn.code).toBe(0);
    const profile = config(dir).profiles.default;
    expect(profile.token).toBeUndefined();
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(token);
    expect(await keyringHolds(service, profile.token_keyring)).toBe(token);

    const status = await cli(dir, ['auth', 'status', '-o', 'json']);
    expect(status.code).toBe(0);
    expect(status.json()).toMatchObject({ user: 'developer-of-acme', token_source: 'keyring', token_storage: 'keyring' });
    expect((await cli(dir, ['profile', 'list', '-o', 'json'])).json()).toMatchObject([{ name: 'default', token_storage: 'keyring' }]);
    expect((await cli(dir, ['projects', 'get', 'acme/api', '-o', 'json'])).code).toBe(0);
    const checked = await cli(dir, ['doctor', '-o', 'json']);
    expect((checked.json() as Array<{ check: string; found: string }>).find((check) => check.check === 'token storage')?.found).toBe(`the OS keyring (entry "${profile.token_keyring}" of service forgectl)`);
    expect(checked.code).toBe(0);

    const rotated = await cli(dir, ['tokens', 'rotate', 'self', '--personal', '--save-to-profile', '--yes', '-o', 'json']);
    expect(rotated.stderr).toContain('saved to profile "default"');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).not.toMatch(/glpat-/);
    const fresh = await keyringHolds(service, profile.token_keyring);
    expect(fresh).not.toBe(token);
    expect(config(dir).profiles.default).toEqual(profile); // the reference is unchanged, the file holds no token
    expect((await sandbox.call('GET', '/user', undefined, fresh!)).status).toBe(200);
    expect((await sandbox.call('GET', '/user', undefined, token)).status).toBe(401);
    expect((await cli(dir, ['auth', 'status', '-o', 'json'])).json()).toMatchObject({ user: 'developer-of-acme', token_source: 'keyring' });

    const unasked = await cli(dir, ['auth', 'logout']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain(`error: confirmation needed: Remove the token of profile "default" from the OS keyring (entry "${profile.token_keyring}" of service forgectl)? forgectl keeps no other copy of it, and it stays valid on ${sandbox.rootUrl} until it is revoked`);
    expect(await keyringHolds(service, profile.token_keyring)).toBe(fresh);
    const loggedOut = await cli(dir, ['auth', 'logout', '--yes']);
    expect(loggedOut.stderr).toContain('from the OS keyring too');
    expect(await keyringHolds(service, profile.token_keyring)).toBeNull();
    expect(config(dir).profiles.default.token_keyring).toBeUndefined();
    expect((await cli(dir, ['auth', 'token'])).code).toBe(3);

    // profile remove takes the entry with it where the keyring answers.
    expect((await cli(dir, ['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], {}, `${fresh}\n`)).code).toBe(0);
    const entry = config(dir).profiles.default.token_keyring;
    expect(await keyringHolds(service, entry)).toBe(fresh);
    const removed = await cli(dir, ['profile', 'remove', 'default', '--yes']);
    expect(removed.stderr).toBe('Removed profile "default"\n');
    expect(await keyringHolds(service, entry)).toBeNull();
  });

  it('a keyring gone while the rotate request is in flight: exit 10, the new token in the recovery file', async () => {
    const own = await startSecretService();
    try {
      const dir = tempDir();
      const token = sandbox.tokenWithRole('maintainer');
      expect((await runBin(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], { env: { FORGECTL_CONFIG_DIR: dir, ...own.env }, input: token })).code).toBe(0);
      sandbox.clearRequests();
      sandbox.fault({ method: 'POST', path: 'rotate$', answer_latency_ms: 1500 });
      const running = runBin(['tokens', 'rotate', 'self', '--personal', '--save-to-profile', '--yes'], { env: { FORGECTL_CONFIG_DIR: dir, ...own.env } });
      // The service has rotated (the answer waits): the keyring goes away before the answer arrives.
      while (!sandbox.requests().some((request) => request.method === 'POST' && request.path.endsWith('/rotate'))) await new Promise((resolve) => setTimeout(resolve, 20));
      own.stop();
      const result = await running;
      expect(result.stderr).toMatch(/was rotated .*but could not be saved everywhere: not updated: profile "default": .*keyring/);
      expect(result.code).toBe(10);
      const recovery = readdirSync(join(dir, 'recovery'));
      expect(recovery).toHaveLength(1);
      const saved = JSON.parse(readFileSync(join(dir, 'recovery', recovery[0]), 'utf8')) as { token: { token: string } };
      expect((await sandbox.call('GET', '/user', undefined, saved.token.token)).status).toBe(200);
      expect(result.stdout).toBe('');
    } finally {
      own.stop();
    }
  });

  it('a keyring gone before the rotation is sent: exit 3 saying the token in use could not be checked, not "rotated by another run"; nothing sent', async () => {
    const own = await startSecretService();
    try {
      const dir = tempDir();
      const token = sandbox.tokenWithRole('owner');
      expect((await runBin(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], { env: { FORGECTL_CONFIG_DIR: dir, ...own.env }, input: token })).code).toBe(0);
      sandbox.clearRequests();
      // The first read of the token in use waits: the keyring goes away then, before the check that comes after it.
      sandbox.fault({ method: 'GET', path: 'personal_access_tokens/self$', answer_latency_ms: 1500, times: 1 });
      const running = runBin(['tokens', 'rotate', 'self', '--personal', '--save-to-profile', '--yes'], { env: { FORGECTL_CONFIG_DIR: dir, ...own.env } });
      while (!sandbox.requests().some((request) => request.method === 'GET' && request.path.endsWith('/personal_access_tokens/self'))) await new Promise((resolve) => setTimeout(resolve, 20));
      own.stop();
      const result = await running;
      expect(result.stderr).toMatch(/error: could not check the token in use before rotating it: profile "default" keeps its token in the OS keyring, which cannot be used here: .*; nothing was sent/);
      expect(result.stderr).not.toContain('another run');
      expect(result.code).toBe(3);
      expect(sandbox.requests().filter((request) => request.method !== 'GET')).toEqual([]);
      expect((await sandbox.call('GET', '/user', undefined, token)).status).toBe(200);
    } finally {
      own.stop();
    }
  });

  it('off a terminal, or under CI=true at one, the file is used; at a terminal the keyring', async (context) => {
    needs(context, 'pty');
    const token = sandbox.tokenWithRole('reporter');
    const piped = tempDir();
    expect((await cli(piped, ['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], {}, token)).code).toBe(0);
    expect(config(piped).profiles.default).toMatchObject({ token });

    const env = (dir: string, extra: Record<string, string> = {}) => ({ FORGECTL_CONFIG_DIR: dir, ...service.env, ...extra });
    const ci = tempDir();
    const inCi = await onTerminal(`printf '%s\\n' ${token} | ${login} --url ${sandbox.rootUrl}`, env(ci, { CI: 'true' }));
    expect(inCi.code).toBe(0);
    expect(config(ci).profiles.default).toMatchObject({ token });

    const desk = tempDir();
    const atDesk = await onTerminal(`printf '%s\\n' ${token} | ${login} --url ${sandbox.rootUrl}`, env(desk));
    expect(atDesk.stdout).toContain('token saved in the OS keyring');
    expect(config(desk).profiles.default.token).toBeUndefined();
    expect(await keyringHolds(service, config(desk).profiles.default.token_keyring)).toBe(token);

    // --insecure-storage at a terminal, and migrate there and back.
    const file = tempDir();
    expect((await onTerminal(`printf '%s\\n' ${token} | ${login} --url ${sandbox.rootUrl} --insecure-storage`, env(file))).code).toBe(0);
    expect(config(file).profiles.default).toMatchObject({ token });
    const toKeyring = await cli(file, ['auth', 'migrate', '--to', 'keyring', '-o', 'json']);
    expect(toKeyring.json()).toEqual([{ profile: 'default', from: 'file', to: 'keyring' }]);
    expect(readFileSync(join(file, 'config.json'), 'utf8')).not.toContain(token);
    expect((await cli(file, ['auth', 'status', '-o', 'json'])).json()).toMatchObject({ token_storage: 'keyring' });
    const account = config(file).profiles.default.token_keyring;
    expect((await cli(file, ['auth', 'migrate', '--to', 'file', '-o', 'json'])).json()).toEqual([{ profile: 'default', from: 'keyring', to: 'file' }]);
    expect(config(file).profiles.default).toMatchObject({ token });
    expect(await keyringHolds(service, account)).toBeNull();
  });

  it('a keyring service without a login keyring: --keyring exits 3 saying there is no default keyring', async () => {
    const empty = await startSecretService({ loginKeyring: false });
    try {
      const dir = tempDir();
      const result = await runBin(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], { env: { FORGECTL_CONFIG_DIR: dir, ...empty.env }, input: sandbox.tokenWithRole('guest') });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/^error: --keyring: the keyring refused to store the token: no default keyring \(.*\); nothing was saved$/m);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    } finally {
      empty.stop();
    }
  }, 30_000);

  it('when no keyring answers: --keyring fails with exit 3 and saves nothing; at a terminal the file, with one warning', async (context) => {
    const token = sandbox.tokenWithRole('guest');
    const dir = tempDir();
    const noBus = { DBUS_SESSION_BUS_ADDRESS: undefined };
    const insisted = await cli(dir, ['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], noBus, token);
    expect(insisted.code).toBe(3);
    expect(insisted.stderr).toMatch(/^error: --keyring: no keyring answered: .*; nothing was saved$/m);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect((await cli(dir, ['auth', 'migrate', '--to', 'keyring'], noBus)).code).toBe(0); // nothing to move

    needs(context, 'pty');
    // Without a session bus (a headless server) there is no keyring to ask: the file, quietly.
    const headless = await onTerminal(`printf '%s\\n' ${token} | ${login} --url ${sandbox.rootUrl}`, { FORGECTL_CONFIG_DIR: dir, HOME: dir });
    expect(headless.code).toBe(0);
    expect(headless.stdout).not.toContain('warning:');
    expect(config(dir).profiles.default).toMatchObject({ token });
    // A session bus that nobody answers on: the file, with one warning.
    const fallback = await onTerminal(`printf '%s\\n' ${token} | ${login} --url ${sandbox.rootUrl}`, { FORGECTL_CONFIG_DIR: dir, HOME: dir, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` });
    expect(fallback.code).toBe(0);
    expect(fallback.stdout.match(/warning:/g)).toHaveLength(1);
    expect(fallback.stdout).toMatch(/warning: no keyring answered: .*; the token is saved in the config file \(mode 0600\) instead/);
    expect(config(dir).profiles.default).toMatchObject({ token });
    const moved = await cli(dir, ['auth', 'migrate', '--to', 'keyring'], noBus);
    expect(moved.code).toBe(3);
    expect(config(dir).profiles.default).toMatchObject({ token });

    expect(insisted.stderr).toContain('no keyring answered: no session bus (DBUS_SESSION_BUS_ADDRESS is not set: there is no desktop session here)');

    // A profile kept in the keyring, run where none answers: exit 3 saying so, nothing sent.
    const kept = tempDir();
    expect((await cli(kept, ['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], {}, token)).code).toBe(0);
    sandbox.clearRequests();
    const away = await cli(kept, ['users', 'list'], noBus);
    expect(away.code).toBe(3);
    expect(away.stderr).toMatch(/^error: profile "default" keeps its token in the OS keyring, which cannot be used here: no keyring answered/m);
    expect(sandbox.requests()).toEqual([]);
    // Logging out there removes nothing: the entry would be left behind with no reference to find it by.
    const account = config(kept).profiles.default.token_keyring;
    const loggedOut = await cli(kept, ['auth', 'logout', '--yes'], noBus);
    expect(loggedOut.code).toBe(3);
    expect(loggedOut.stderr).toContain(`error: the token of profile "default" is still in the OS keyring (entry "${account}" of service forgectl): no keyring answered: no session bus`);
    expect(loggedOut.stderr).toContain(`secret-tool clear service forgectl username '${account}'`);
    expect(loggedOut.stderr).not.toContain('Removed the credentials');
    expect(config(kept).profiles.default.token_keyring).toBe(account);
    expect(await keyringHolds(service, account)).toBe(token);
    const checked = await cli(kept, ['doctor', '-o', 'json'], noBus);
    expect(checked.code).toBe(3);
    expect((checked.json() as Array<{ check: string; status: string; found: string }>).find((check) => check.check === 'profile in use')).toMatchObject({ status: 'fail', found: expect.stringContaining('keeps its token in the OS keyring, which cannot be used here') });

    // Removing the profile there refuses the same way, unless told to leave the entry (which it then names).
    const before = readFileSync(join(kept, 'config.json'), 'utf8');
    const refused = await cli(kept, ['profile', 'remove', 'default', '--yes'], noBus);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`error: the token of profile "default" is still in the OS keyring (entry "${account}" of service forgectl): no keyring answered: no session bus`);
    expect(refused.stderr).toContain('forgectl profile remove default --keep-keyring-entry');
    expect(refused.stderr).toContain(`secret-tool clear service forgectl username '${account}'`);
    expect(readFileSync(join(kept, 'config.json'), 'utf8')).toBe(before);
    const leftBehind = await cli(kept, ['profile', 'remove', 'default', '--yes', '--keep-keyring-entry'], noBus);
    expect(leftBehind.code).toBe(0);
    expect(leftBehind.stderr).toContain(`warning: the token of profile "default" stays in the OS keyring (entry "${account}" of service forgectl); remove it with your keyring tool, such as: secret-tool clear service forgectl username '${account}'`);
    expect(config(kept).profiles).toEqual({});
    expect(await keyringHolds(service, account)).toBe(token);
  });
});

describe.skipIf(!BUILT)('a missing or broken keyring binding (at a pseudo-terminal)', () => {
  const sandbox = useTestSandbox();
  beforeEach((context) => needs(context, 'pty'));

  /** The built CLI in a folder of its own, whose node_modules has only the given @napi-rs/keyring (or none). */
  function install(binding: string | undefined): string {
    const dir = tempDir('forgectl-binding-');
    cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), readFileSync(join(ROOT, 'package.json')));
    if (binding !== undefined) {
      mkdirSync(join(dir, 'node_modules', '@napi-rs', 'keyring'), { recursive: true });
      writeFileSync(join(dir, 'node_modules', '@napi-rs', 'keyring', 'package.json'), '{"name":"@napi-rs/keyring","main":"index.js"}');
      writeFileSync(join(dir, 'node_modules', '@napi-rs', 'keyring', 'index.js'), binding);
    }
    return join(dir, 'bin', 'forgectl.cjs');
  }

  it.each([
    ['missing', undefined],
    ['broken', "process.stderr.write('keyring binding required\\n'); throw new Error('keyring.linux-x64-gnu.node: cannot open shared object file')"],
  ])('%s: login at a terminal saves to the file with one warning; --keyring exits 3', async (_kind, binding) => {
    const bin = install(binding);
    const dir = tempDir();
    const token = sandbox.tokenWithRole('developer');
    const [command, args] = pty!(`printf '%s\\n' ${token} | ${JSON.stringify(process.execPath)} ${bin} auth login --token-stdin --url ${sandbox.rootUrl}`);
    // A desktop session (a bus address; nothing needs to answer on it, the binding fails before).
    const result = await runProcess(command, args, { env: { PATH: process.env.PATH, FORGECTL_CONFIG_DIR: dir, TERM: 'dumb', DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'bus')}` }, timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/warning:/g)).toHaveLength(1);
    expect(result.stdout).toMatch(/warning: the keyring module @napi-rs\/keyring could not be loaded: .*; the token is saved in the config file/);
    expect(config(dir).profiles.default).toMatchObject({ token });
    if (binding) expect(result.stdout).toContain('keyring binding required');
    // A profile keeping its token in the file never loads the binding (no start-up cost).
    const listed = await runProcess(process.execPath, [bin, 'users', 'list', '--limit', '1'], { env: { PATH: process.env.PATH, FORGECTL_CONFIG_DIR: dir } });
    expect(listed.code).toBe(0);
    expect(listed.stderr).not.toContain('keyring binding required');

    const insisted = await runProcess(process.execPath, [bin, '-p', 'other', 'auth', 'login', '--token-stdin', '--keyring', '--url', sandbox.rootUrl], { env: { PATH: process.env.PATH, FORGECTL_CONFIG_DIR: dir }, input: token });
    expect(insisted.code).toBe(3);
    expect(insisted.stderr).toMatch(/^error: --keyring: the keyring module @napi-rs\/keyring could not be loaded/m);
  });
});

/**
 * A session bus that accepts connections and never answers (a wedged dbus-daemon): the keyring binding waits on it for
 * minutes. forgectl asks the keyring in a helper process with a deadline, so it neither hangs nor ignores signals.
 */
describe.skipIf(!BUILT || process.platform !== 'linux')('a session bus that accepts and never answers', () => {
  const sandbox = useTestSandbox();
  let address = '';
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined); // read what the client says; answer nothing
    socket.on('error', () => undefined);
  });
  beforeAll(async () => {
    const path = join(tempDir('forgectl-wedged-bus-'), 'bus');
    await new Promise<void>((resolve) => server.listen(path, resolve));
    address = `unix:path=${path}`;
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });

  /** A config folder whose profile keeps its token in the keyring under this (unique) account. */
  function keyringProfile(account: string): string {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'desk', profiles: { desk: { url: sandbox.rootUrl, token_keyring: account } } }), { mode: 0o600 });
    return dir;
  }
  /** Processes still running whose command line names this account (a keyring helper left behind). */
  const helpersOf = (account: string): string[] =>
    readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(account);
      } catch {
        return false;
      }
    });

  it('login --keyring in a pipe fails within the deadline (exit 3), saving nothing', async () => {
    const dir = tempDir();
    const started = Date.now();
    const result = await runBin(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--keyring'], { env: { FORGECTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address }, input: sandbox.tokenWithRole('guest') });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: --keyring: no keyring answered within 4s \(the session bus or the keyring service is not responding\); nothing was saved$/m);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  }, 30_000);

  it('login at a terminal falls back to the config file within the deadline, with one warning', async (context) => {
    if (!pty) return context.skip('no pseudo-terminal: neither util-linux `script` nor python3 is installed');
    const dir = tempDir();
    const token = sandbox.tokenWithRole('guest');
    const [command, args] = pty(`printf '%s\\n' ${token} | ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} auth login --token-stdin --url ${sandbox.rootUrl}`);
    const started = Date.now();
    const result = await runProcess(command, args, { env: { PATH: process.env.PATH, TERM: 'dumb', FORGECTL_CONFIG_DIR: dir, HOME: dir, DBUS_SESSION_BUS_ADDRESS: address }, timeoutMs: 30_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(0);
    expect(result.stdout.match(/warning:/g)).toHaveLength(1);
    expect(result.stdout).toContain('warning: no keyring answered within 4s');
    expect(config(dir).profiles.default).toMatchObject({ token });
  }, 30_000);

  it('a profile kept in the keyring: SIGTERM while the keyring is asked ends the run at once (143), leaving no helper behind', async () => {
    const account = `wedged-${process.pid}-${Date.now()}`;
    const dir = keyringProfile(account);
    sandbox.clearRequests();
    const child = spawn(process.execPath, [BIN, 'users', 'list', '--limit', '1'], { env: { PATH: process.env.PATH, HOME: dir, FORGECTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<{ code: number | null; ms: number }>((resolve) => child.on('close', (code) => resolve({ code, ms: Date.now() - signalled })));
    // The helper is asking the wedged bus.
    for (let i = 0; i < 300 && !helpersOf(account).length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(helpersOf(account).length).toBeGreaterThan(0);
    const signalled = Date.now();
    child.kill('SIGTERM');
    const { code, ms } = await done;
    expect(code).toBe(143);
    expect(ms).toBeLessThan(2000);
    expect(stderr).toMatch(/interrupted by SIGTERM/);
    expect(helpersOf(account)).toEqual([]);
    expect(sandbox.requests()).toEqual([]);
  }, 30_000);

  it('a profile kept in the keyring, left alone: exit 3 within the deadline saying the keyring did not answer, nothing sent', async () => {
    const account = `wedged-alone-${process.pid}-${Date.now()}`;
    const dir = keyringProfile(account);
    sandbox.clearRequests();
    const started = Date.now();
    const result = await runBin(['users', 'list', '--limit', '1'], { env: { HOME: dir, FORGECTL_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: address } });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: profile "desk" keeps its token in the OS keyring, which cannot be used here: no keyring answered within 4s/m);
    expect(sandbox.requests()).toEqual([]);
    expect(helpersOf(account)).toEqual([]);
  }, 30_000);
});
