import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, tempDir, type RunOptions, type TestSandbox, useTestSandbox } from '../helpers/cli.js';
import { tokens } from '../../src/sandbox/model.js';

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);

interface Check {
  section: string;
  check: string;
  status: 'pass' | 'warn' | 'fail' | 'skip';
  found: string;
  fix: string | null;
  exit_code: number | null;
}

async function doctor(argv: string[] = [], options: RunOptions = {}, on: TestSandbox = sandbox): Promise<{ code: number; checks: Record<string, Check>; stderr: string }> {
  const result = await on.run(['doctor', '-o', 'json', ...argv], options);
  const list = JSON.parse(result.stdout) as Check[];
  return { code: result.code, stderr: result.stderr, checks: Object.fromEntries(list.map((check) => [check.check, check])) };
}

/** A personal token of alice with these scopes and expiry, made through the API. */
async function aliceToken(scopes: string[], expiresAt = day(90)): Promise<string> {
  const created = await sandbox.call('POST', '/users/2/personal_access_tokens', { name: `doctor-${scopes.join('-')}`, scopes, expires_at: expiresAt });
  expect(created.status).toBe(201);
  return created.body.token as string;
}

/** A config folder with profile "prod" logged in (token in the file) with this token. */
async function profileWith(token: string, extra: Record<string, string | undefined> = {}): Promise<{ dir: string; env: Record<string, string | undefined> }> {
  const dir = tempDir();
  const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, ...extra };
  const login = await sandbox.run(['-p', 'prod', 'auth', 'login', '--url', sandbox.rootUrl, '--token-stdin', '--no-verify'], { env, input: token });
  expect(login.code, login.stderr).toBe(0);
  return { dir, env };
}

describe('doctor: every check passes against a healthy sandbox', () => {
  it('one record per check, in order, with the documented fields; exit 0', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    const result = await sandbox.run(['doctor', '-o', 'json'], { env });
    expect(result.code, result.stdout).toBe(0);
    const checks = JSON.parse(result.stdout) as Check[];
    expect(checks.map((check) => `${check.section}/${check.check}`)).toEqual([
      'configuration/file modes', 'configuration/profiles', 'configuration/profile in use', 'configuration/token storage', 'configuration/interrupted rotations', 'configuration/locks',
      'network/dns', 'network/proxy', 'network/tcp', 'network/tls', 'network/http to https', 'network/round trip',
      'service/version', 'service/features', 'service/rate limit', 'service/clock',
      'token/valid', 'token/scopes', 'token/expiry', 'token/self_rotate',
    ]);
    for (const check of checks) {
      expect(Object.keys(check)).toEqual(['section', 'check', 'status', 'found', 'fix', 'exit_code']);
      expect(['pass', 'skip']).toContain(check.status);
    }
    const byName = Object.fromEntries(checks.map((check) => [check.check, check]));
    expect(byName['file modes'].found).toBe(`${join(dir, 'config.json')} is 0600 in a 0700 folder`);
    expect(byName.profiles.found).toBe('1 profile: prod (file)');
    expect(byName['profile in use'].found).toBe(`profile "prod" for ${sandbox.rootUrl}: it is the current profile (forgectl profile use)`);
    expect(byName['token storage'].found).toContain('the config file');
    expect(byName.valid.found).toMatch(/^valid private token of alice/);
    expect(byName.scopes.found).toContain('scopes api → every command group');
    expect(byName.version.found).toMatch(/^version 17\./);
    expect(byName.tls).toMatchObject({ status: 'skip', found: 'plain http: no TLS' });
  });

  it('in a pipe one tab-separated line per check; at a terminal whole lines with the fix', async () => {
    const piped = await sandbox.run(['doctor']);
    expect(piped.stdout.trim().split('\n')).toHaveLength(20);
    expect(piped.stdout).toMatch(/^pass\tnetwork\tdns\t127\.0\.0\.1 is an address \(no lookup\)\t$/m);
    sandbox.fault({ method: 'GET', path: '^/version$', times: 1, status: 200, headers: { 'RateLimit-Limit': '100', 'RateLimit-Remaining': '3' }, body: { version: '17.11.0' } });
    const terminal = await sandbox.run(['doctor'], { tty: true });
    expect(terminal.code).toBe(9);
    expect(terminal.stdout).toMatch(/^warn {2}service: rate limit +RateLimit headers present: 3 of 100 requests left {2}→ fix: wait for the reset/m);
    expect(terminal.stderr).toBe('0 failed, 1 to look at (exit 9)\n');
    // What was found starts in one column on every line, past the longest check's name.
    const columns = terminal.stdout.trimEnd().split('\n').map((line) => line.match(/^\S+ {2}.*? {2,}(?=\S)/)![0].length);
    expect(columns).toHaveLength(20);
    expect(new Set(columns).size, terminal.stdout).toBe(1);
  });

  it('says why the profile is used: -p, FORGECTL_PROFILE, --server matching a profile, a CI job', async () => {
    const { env } = await profileWith(await aliceToken(['api']));
    expect((await doctor(['-p', 'prod'], { env })).checks['profile in use'].found).toContain(': -p prod');
    expect((await doctor([], { env: { ...env, FORGECTL_PROFILE: 'prod' } })).checks['profile in use'].found).toContain(': FORGECTL_PROFILE=prod');
    const ci = await doctor([], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, CI: 'true', CI_SERVER_URL: sandbox.rootUrl, CI_JOB_TOKEN: 'job-token' } });
    expect(ci.checks['profile in use'].found).toBe(`no profile for ${sandbox.rootUrl}: a CI job was detected (CI_JOB_TOKEN with CI_API_V4_URL or CI_SERVER_URL); CI detected (CI is set)`);
    expect(ci.checks['token storage'].found).toBe('CI_JOB_TOKEN (CI job)');
  });
});

describe('doctor: configuration failures', () => {
  it('a config file others can read fails with exit 3; --fix sets 0600 and 0700', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    chmodSync(join(dir, 'config.json'), 0o644);
    chmodSync(dir, 0o755);
    const broken = await doctor([], { env });
    expect(broken.code).toBe(3);
    expect(broken.checks['file modes']).toMatchObject({ status: 'fail', exit_code: 3, found: `${join(dir, 'config.json')} is 0644, ${dir} is 0755, and it holds a token others can read` });
    expect(broken.checks['file modes'].fix).toBe(`chmod 600 ${join(dir, 'config.json')} && chmod 700 ${dir}   (or: forgectl doctor --fix)`);
    const fixed = await doctor(['--fix'], { env });
    expect(fixed.checks['file modes']).toMatchObject({ status: 'pass', found: expect.stringMatching(/^fixed: chmod 600 /) });
    expect(fixed.code).toBe(0);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a pending recovery file and a stale lock warn (exit 9); --fix removes the lock and names the recovery command', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    mkdirSync(join(dir, 'recovery'), { mode: 0o700 });
    writeFileSync(join(dir, 'recovery', 'personal-abc-9-2026.json'), JSON.stringify({ version: 1, created_at: '2026-01-01T03:00:00.000Z', instance: sandbox.rootUrl, kind: 'personal', resource: '', rotated_token_id: 9, rotated_token_sha256: null, targets: {}, previous: {}, token: { token: 'glpat-x', id: 10 } }), { mode: 0o600 });
    mkdirSync(join(dir, 'locks'), { mode: 0o700 });
    const lock = join(dir, 'locks', 'rotate-abc-9.lock');
    writeFileSync(lock, '999999999 - -\n', { mode: 0o600 });
    const found = await doctor([], { env });
    expect(found.code).toBe(9);
    expect(found.checks['interrupted rotations']).toMatchObject({ status: 'warn', fix: 'forgectl tokens recover', found: expect.stringContaining('1 interrupted rotation waiting') });
    expect(found.checks.locks).toMatchObject({ status: 'warn', found: `1 stale lock left by runs that are gone: ${lock}` });
    const fixed = await doctor(['--fix'], { env });
    expect(fixed.checks.locks).toMatchObject({ status: 'pass', found: `fixed: removed 1 stale lock (${lock})` });
    expect(fixed.checks['interrupted rotations'].status).toBe('warn');
    expect(() => statSync(lock)).toThrow();
    // A lock held by a live process (this one) is not stale.
    writeFileSync(lock, `${process.pid} - -\n`);
    expect((await doctor([], { env })).checks.locks.status).toBe('pass');
  });

  it('without -o, on the problems it exists for: a 0644 config file is a failed check (exit 3) and --fix repairs it', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    const file = join(dir, 'config.json');
    chmodSync(file, 0o644);
    const found = await sandbox.run(['doctor'], { env });
    expect(found.code, found.stderr).toBe(3);
    expect(found.stdout.trim().split('\n')).toHaveLength(20);
    expect(found.stdout).toContain(`fail\tconfiguration\tfile modes\t${file} is 0644, and it holds a token others can read\tchmod 600 ${file}   (or: forgectl doctor --fix)`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const fixed = await sandbox.run(['doctor', '--fix'], { env });
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toMatch(new RegExp(`^pass\tconfiguration\tfile modes\tfixed: chmod 600 ${file}`, 'm'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o644);
    const terminal = await sandbox.run(['doctor', '--fix'], { env, tty: true });
    expect(terminal.code).toBe(0);
    expect(terminal.stdout).toMatch(/^pass {2}configuration: file modes +fixed: chmod 600 /m);
  });

  it('without -o, a config file that is not JSON is a failed check naming the fix (exit 3), with every other check shown', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    writeFileSync(join(dir, 'config.json'), '{bad');
    const result = await sandbox.run(['doctor'], { env });
    expect(result.code).toBe(3);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(20);
    expect(lines[1]).toBe(`fail\tconfiguration\tprofiles\tconfig ${join(dir, 'config.json')} is not valid JSON\tfix or remove it, then run: forgectl auth login`);
    expect(result.stderr).toMatch(/failed/);
  });

  it('a config file that is not JSON does not hide the instance FORGECTL_URL names: its network is still checked', async () => {
    const { dir, env } = await profileWith(await aliceToken(['api']));
    writeFileSync(join(dir, 'config.json'), '{bad');
    const result = await doctor([], { env: { ...env, FORGECTL_URL: sandbox.rootUrl } });
    expect(result.code).toBe(3);
    expect(result.checks['profile in use']).toMatchObject({ status: 'fail' });
    expect(result.checks.tcp).toMatchObject({ status: 'pass' });
    expect(result.checks['round trip'].found).toMatch(/^GET \/version answered/);
  });

  it('a profile whose token lives in a keyring that cannot be read: the network of its URL is still checked', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'kr2', profiles: { kr2: { url: sandbox.rootUrl, token_keyring: 'forgectl-doctor-test-missing-entry' } } }), { mode: 0o600 });
    const result = await doctor(['-p', 'kr2'], { env: { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined, DBUS_SESSION_BUS_ADDRESS: undefined } });
    expect(result.code).toBe(3);
    expect(result.checks['profile in use']).toMatchObject({ status: 'fail', found: expect.stringContaining('profile "kr2" keeps its token in the OS keyring') });
    expect(result.checks.dns).toMatchObject({ status: 'pass', found: '127.0.0.1 is an address (no lookup)' });
    expect(result.checks.tcp).toMatchObject({ status: 'pass', found: expect.stringMatching(/^connected to 127\.0\.0\.1:\d+ in \d+ ms$/) });
    expect(result.checks['round trip'].status).toBe('pass');
    expect(result.checks.valid.status).toBe('skip');
  });

  it('no instance configured: exit 3, and the checks that need one are skipped', async () => {
    const result = await doctor([], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined } });
    expect(result.code).toBe(3);
    expect(result.checks['profile in use']).toMatchObject({ status: 'fail', found: 'no instance configured', exit_code: 3 });
    expect(result.checks.dns.status).toBe('skip');
    expect(result.checks.valid.status).toBe('skip');
  });
});

describe('doctor: network failures', () => {
  it('a host that does not resolve fails with exit 8', async () => {
    const result = await doctor([], { env: { FORGECTL_URL: 'https://forgectl-doctor.invalid' } });
    expect(result.code).toBe(8);
    expect(result.checks.dns).toMatchObject({ status: 'fail', exit_code: 8, found: expect.stringMatching(/^forgectl-doctor\.invalid does not resolve \(/) });
  });

  it('a proxy: loopback bypasses it; another host goes through it, and a dead proxy fails tcp with exit 8', async () => {
    const loopback = await doctor([], { env: { HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' } });
    expect(loopback.checks.proxy.found).toBe('loopback instance: direct, bypassing the proxy http://127.0.0.1:9 (a loopback target is never reached through a proxy)');
    expect(loopback.code).toBe(0);
    const remote = await doctor([], { env: { FORGECTL_URL: 'https://localhost.example.invalid', HTTPS_PROXY: 'http://127.0.0.1:9' } });
    expect(remote.checks.proxy.found).toBe('through the proxy http://127.0.0.1:9 (HTTPS_PROXY)');
    expect(remote.checks.tcp).toMatchObject({ status: 'fail', exit_code: 8, found: 'cannot connect to the proxy http://127.0.0.1:9 (ECONNREFUSED)' });
  });

  it('a NO_PROXY address range (CIDR), which the proxy agent does not support, warns once and says what works', async () => {
    const env = { FORGECTL_URL: 'https://forgectl-doctor.invalid', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'localhost,192.0.2.0/24' };
    const result = await doctor([], { env });
    expect(result.checks.proxy).toMatchObject({
      status: 'warn',
      found: 'through the proxy http://127.0.0.1:9 (HTTPS_PROXY); NO_PROXY holds an address range (192.0.2.0/24), which the proxy agent does not support: no host matches it',
      fix: expect.stringContaining('list the hosts themselves in NO_PROXY: a name (git.corp.example, which covers its subdomains too), a domain (.corp.example), an address (192.0.2.10)'),
    });
    expect(Object.values(result.checks).filter((check) => String(check.found).includes('192.0.2.0/24'))).toHaveLength(1);
    const listed = await doctor([], { env: { ...env, NO_PROXY: '.invalid' } });
    expect(listed.checks.proxy).toMatchObject({ status: 'pass', found: 'direct: forgectl-doctor.invalid is in NO_PROXY' });
  });

  it('an IPv6 address without brackets in NO_PROXY, which the proxy agent never matches, warns and names the bracketed form; loopback ones do not', async () => {
    const env = { FORGECTL_URL: 'https://[2001:db8::10]', HTTPS_PROXY: 'http://127.0.0.1:9' };
    // --timeout 1: the direct probes of an address nothing answers at end within a second.
    const bare = await doctor(['--timeout', '1'], { env: { ...env, NO_PROXY: 'localhost,::1,2001:db8::10' } });
    expect(bare.checks.proxy).toMatchObject({
      status: 'warn',
      found: 'through the proxy http://127.0.0.1:9 (HTTPS_PROXY); NO_PROXY holds an IPv6 address without brackets (2001:db8::10), which the proxy agent does not match: it matches [2001:db8::10]',
      fix: expect.stringContaining('an address (192.0.2.10), an IPv6 address in brackets ([2001:db8::10])'),
    });
    const bracketed = await doctor(['--timeout', '1'], { env: { ...env, NO_PROXY: 'localhost,::1,[2001:db8::10]' } });
    expect(bracketed.checks.proxy).toMatchObject({ status: 'pass', found: 'direct: [2001:db8::10] is in NO_PROXY' });
    const elsewhere = await doctor([], { env: { FORGECTL_URL: 'https://forgectl-doctor.invalid', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '::1,fe80::1,fe80::2' } });
    expect(elsewhere.checks.proxy.found).toBe('through the proxy http://127.0.0.1:9 (HTTPS_PROXY); NO_PROXY holds IPv6 addresses without brackets (fe80::1, fe80::2), which the proxy agent does not match: it matches [fe80::1]');
  });

  it('says the route the proxy agent takes: `*` only as the whole NO_PROXY, NAME:PORT for that port only, and the variable it read', async () => {
    const proxy = 'http://127.0.0.1:9';
    const route = async (env: Record<string, string>, url = 'https://forgectl-doctor.invalid') => (await doctor([], { env: { FORGECTL_URL: url, ...env } })).checks.proxy.found;
    expect(await route({ HTTPS_PROXY: proxy, NO_PROXY: 'localhost,*' })).toBe(
      `through the proxy ${proxy} (HTTPS_PROXY); NO_PROXY holds * among other entries, which the proxy agent reads as a host named *: only * as the whole value sends every host direct`,
    );
    expect(await route({ HTTPS_PROXY: proxy, NO_PROXY: '*' })).toBe('direct: forgectl-doctor.invalid is in NO_PROXY');
    expect(await route({ HTTPS_PROXY: proxy, NO_PROXY: 'forgectl-doctor.invalid:8443' })).toBe(`through the proxy ${proxy} (HTTPS_PROXY)`);
    expect(await route({ HTTPS_PROXY: proxy, NO_PROXY: 'forgectl-doctor.invalid:8443' }, 'https://forgectl-doctor.invalid:8443')).toBe('direct: forgectl-doctor.invalid:8443 is in NO_PROXY');
    expect(await route({ HTTP_PROXY: proxy })).toBe(`through the proxy ${proxy} (HTTP_PROXY)`);
    expect(await route({ https_proxy: proxy, HTTPS_PROXY: 'http://127.0.0.1:8' })).toBe(`through the proxy ${proxy} (https_proxy)`);
  });

  it('a closed port fails tcp with exit 8', async () => {
    const gone = await startTestSandbox();
    await gone.close();
    const result = await doctor([], { env: { FORGECTL_URL: gone.rootUrl } });
    expect(result.code).toBe(8);
    expect(result.checks.tcp).toMatchObject({ status: 'fail', found: expect.stringMatching(/^cannot connect to 127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/) });
  });

  it('http that redirects to https warns, naming the https URL to set; a slow round trip warns', async () => {
    const { env } = await profileWith(await aliceToken(['api']));
    sandbox.fault({ method: 'HEAD', path: '^/version$', status: 301, headers: { Location: 'https://git.example.com/api/v4/version' } });
    const redirected = await doctor([], { env });
    expect(redirected.checks['http to https']).toMatchObject({ status: 'warn', fix: 'forgectl -p prod profile set url https://git.example.com' });
    sandbox.fault({ method: 'GET', path: '^/version$', latency_ms: 2100 });
    const slow = await doctor([], { env });
    expect(slow.checks['round trip']).toMatchObject({ status: 'warn', found: expect.stringMatching(/^GET \/version took \d+ ms$/) });
    expect(slow.code).toBe(9);
  });
});

describe('doctor: TLS with a private CA', () => {
  let tls: TestSandbox;
  beforeAll(async () => {
    tls = await startTestSandbox({ tls: true });
  });
  afterAll(() => tls.close());

  it('without the CA the chain is not trusted (exit 8, fix: ca_file); with it, it passes; near its expiry it warns', async () => {
    const untrusted = await doctor([], {}, tls);
    expect(untrusted.code).toBe(8);
    expect(untrusted.checks.tls).toMatchObject({ status: 'fail', exit_code: 8, found: expect.stringMatching(/^the certificate is not trusted \((SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT)\); certificate forgectl sandbox issued by forgectl sandbox/) });
    expect(untrusted.checks.tls.fix).toContain('forgectl profile set ca_file');
    const trusted = await doctor(['--ca-file', tls.caFile!], {}, tls);
    expect(trusted.checks.tls).toMatchObject({ status: 'pass', found: expect.stringContaining(`CA bundle: Node's `) });
    expect(trusted.checks.tls.found).toContain(`+ ca_file ${tls.caFile}`);
    expect(trusted.code).toBe(0);
    const missing = await doctor(['--ca-file', `${tls.caFile}.missing`], {}, tls);
    expect(missing.checks.tls).toMatchObject({ status: 'fail', exit_code: 3, found: `ca_file ${tls.caFile}.missing cannot be read (ENOENT)` });
    const soon = await doctor(['--ca-file', tls.caFile!], { now: () => new Date(Date.now() + 20 * 86_400_000) }, tls);
    expect(soon.checks.tls).toMatchObject({ status: 'warn', found: expect.stringMatching(/^the certificate expires in (9|10) days/) });
  });
});

describe('doctor: the service', () => {
  const instance = (body: Record<string, unknown>) => fetch(`${sandbox.rootUrl}/-/sandbox/instance`, { method: 'POST', body: JSON.stringify(body) }).then((r) => expect(r.status).toBe(200));
  afterAll(() => instance({ version: '17.11.0-ee', clock_skew_seconds: 0 }));

  it('an old version warns, naming the features it lacks', async () => {
    await instance({ version: '16.5.0-ee' });
    const result = await doctor();
    expect(result.checks.version.found).toBe('version 16.5.0-ee');
    expect(result.checks.features).toMatchObject({ status: 'warn', found: expect.stringMatching(/^16\.5\.0-ee lacks: an expiry for rotated tokens .* since 16\.6; .*group integrations \(integrations\) since 17\.9$/) });
    expect(result.checks.features.found).not.toContain('since 16.0');
    expect(result.code).toBe(9);
    await instance({ version: '17.11.0-ee' });
    expect((await doctor()).checks.features.status).toBe('pass');
  });

  it('a clock ten minutes off warns; within a minute passes', async () => {
    await instance({ clock_skew_seconds: -600 });
    const skewed = await doctor();
    expect(skewed.checks.clock).toMatchObject({ status: 'warn', found: expect.stringMatching(/^this clock is 60\d s ahead of the instance's Date header$/) });
    expect(skewed.checks.clock.fix).toContain('timedatectl set-ntp true');
    await instance({ clock_skew_seconds: 30 });
    expect((await doctor()).checks.clock).toMatchObject({ status: 'pass', found: expect.stringMatching(/^this clock is (29|30|31) s behind/) });
  });

  it('rate-limit headers are read: plenty left passes, almost none left warns', async () => {
    const limited = await startTestSandbox({ rateLimit: { limit: 1000 } });
    try {
      const result = await doctor([], {}, limited);
      expect(result.checks['rate limit']).toMatchObject({ status: 'pass', found: expect.stringMatching(/^RateLimit headers present: 99\d of 1000 requests left, reset at /) });
    } finally {
      await limited.close();
    }
  });
});

describe('doctor: the token', () => {
  it('a revoked or expired token fails with exit 4 and the login fix', async () => {
    const token = await aliceToken(['api']);
    const { env } = await profileWith(token);
    const record = tokens(sandbox.db).find((t) => t.token === token)!;
    record.expires_at = day(-1);
    const expired = await doctor([], { env });
    expect(expired.code).toBe(4);
    expect(expired.checks.valid).toMatchObject({ status: 'fail', exit_code: 4, found: 'the token is rejected (401): revoked, expired or mistyped' });
    expect(expired.checks.valid.fix).toContain('forgectl -p prod auth login');
    expect(expired.checks.scopes.status).toBe('skip');
  });

  it('says why the service and token checks are skipped: a token the instance rejects, a token_command that fails', async () => {
    const rejected = await doctor([], { env: { FORGECTL_TOKEN: 'glpat-not-a-real-token-000' } });
    for (const check of ['version', 'rate limit', 'clock']) expect(rejected.checks[check]).toMatchObject({ status: 'skip', found: 'GET /version needs a valid token (it answered 401)' });
    const dir = tempDir();
    const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: undefined, FORGECTL_TOKEN: undefined };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'tc', profiles: { tc: { url: sandbox.rootUrl, token_command: 'exit 1' } } }), { mode: 0o600 });
    chmodSync(dir, 0o700);
    const failing = await doctor([], { env });
    expect(failing.checks['profile in use']).toMatchObject({ status: 'fail', found: 'token_command failed: it exited with status 1' });
    expect(failing.checks.version.found).toBe('GET /version needs a valid token (it answered 401)');
    for (const check of ['valid', 'self_rotate']) expect(failing.checks[check]).toMatchObject({ status: 'skip', found: 'no token to check (see "profile in use")' });
  });

  it('scopes: read_api only warns (no changes allowed); no API scope fails with exit 4', async () => {
    const readOnly = await doctor([], { env: { FORGECTL_TOKEN: await aliceToken(['read_api']) } });
    expect(readOnly.checks.scopes).toMatchObject({ status: 'warn', found: expect.stringContaining('scopes read_api → read commands of every group (list, get, audit, plan, export), no changes') });
    expect(readOnly.code).toBe(9);
    const gitOnly = await doctor([], { env: { FORGECTL_TOKEN: await aliceToken(['read_user', 'read_repository']) } });
    expect(gitOnly.checks.scopes).toMatchObject({ status: 'fail', exit_code: 4 });
    expect(gitOnly.code).toBe(4);
  });

  it('expiry: within 14 days warns, within a day fails with exit 4', async () => {
    const soon = await doctor([], { env: { FORGECTL_TOKEN: await aliceToken(['api'], day(10)) } });
    expect(soon.checks.expiry).toMatchObject({ status: 'warn', found: `expires in 10 days (${day(10)})` });
    expect(soon.checks.expiry.fix).toContain('forgectl tokens rotate self');
    const tomorrow = await doctor([], { env: { FORGECTL_TOKEN: await aliceToken(['api'], day(1)) } });
    expect(tomorrow.checks.expiry).toMatchObject({ status: 'fail', exit_code: 4, found: `expires tomorrow (${day(1)})` });
    expect(tomorrow.code).toBe(4);
  });

  it('self_rotate: a cron line rotating the profile needs a token allowed to rotate itself', async () => {
    const bin = tempDir();
    writeFileSync(join(bin, 'crontab'), "#!/bin/sh\necho '# m h dom mon dow command'\necho '0 3 * * * forgectl -p prod tokens rotate self --personal --save-to-profile --yes'\n", { mode: 0o755 });
    const path = `${bin}:${process.env.PATH}`;
    const narrow = await profileWith(await aliceToken(['read_api']), { PATH: path });
    const refused = await doctor([], { env: narrow.env });
    expect(refused.checks.self_rotate).toMatchObject({ status: 'fail', exit_code: 4, found: expect.stringContaining('but the token has neither api nor self_rotate scope') });
    const allowed = await profileWith(await aliceToken(['read_api', 'self_rotate']), { PATH: path });
    expect((await doctor([], { env: allowed.env })).checks.self_rotate).toMatchObject({ status: 'pass', found: expect.stringContaining('its scopes allow self-rotation') });
    // Without such a cron line the check is skipped.
    expect((await doctor([], { env: { ...allowed.env, PATH: process.env.PATH } })).checks.self_rotate.status).toBe('skip');
  });
});
