import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/config/resolve.js';
import { ConfigError } from '../../src/errors.js';
import { tokens } from '../../src/sandbox/model.js';
import { addToken } from '../../src/sandbox/seed.js';
import { users } from '../../src/sandbox/model.js';
import { run, startTestSandbox, tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** Environment with only a config folder: what a user has after `auth login`. */
function profileEnv(dir: string): Record<string, string> {
  return { FORGECTL_CONFIG_DIR: dir };
}

describe('auth login and profiles', () => {
  it('writes a 0600 config in a 0700 folder from --token-stdin, and -v logs requests without the token', async () => {
    const dir = join(tempDir(), 'nested', 'forgectl');
    const login = await run(['auth', 'login', '--profile', 'p', '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: `${sandbox.adminToken}\n` });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain('as root');
    expect(login.stderr).toContain(`token saved in ${join(dir, 'config.json')}, readable only by you`);
    expect(login.stdout).toBe('');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ current: 'p', profiles: { p: { url: sandbox.rootUrl, token: sandbox.adminToken } } });

    const verbose = await run(['-p', 'p', '-v', 'api', '/user'], { env: profileEnv(dir) });
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain(`> GET ${sandbox.rootUrl}/api/v4/user`);
    expect(verbose.stderr).toMatch(/private-token: \[REDACTED\]/i);
    expect(verbose.stderr).toMatch(/< 200/);
    expect(verbose.stderr + verbose.stdout).not.toContain(sandbox.adminToken);
  });

  it('-p with a name no profile has suggests the closest profile, or lists them, before creating one', async () => {
    const dir = tempDir();
    for (const name of ['prod', 'staging']) await run(['auth', 'login', '--profile', name, '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: sandbox.adminToken });
    const typo = await run(['-p', 'prdo', 'users', 'list'], { env: profileEnv(dir) });
    expect(typo.code).toBe(3);
    expect(typo.stderr).toBe('error: no profile named "prdo"\nhint: did you mean prod? (forgectl auth login --profile prdo creates it)\n');
    expect((await run(['-p', 'elsewhere', 'users', 'list'], { env: profileEnv(dir) })).stderr).toContain('hint: profiles: prod, staging (forgectl auth login --profile elsewhere creates it)\n');
    expect((await run(['-p', 'prod', 'users', 'list'], { env: profileEnv(tempDir()) })).stderr).toContain('hint: no profiles yet: forgectl auth login --profile prod creates it\n');
  });

  it('refuses a config holding a token that others can read (exit 3 with the chmod)', async () => {
    const dir = tempDir();
    await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: sandbox.adminToken });
    chmodSync(join(dir, 'config.json'), 0o644);
    const result = await run(['api', '/user'], { env: profileEnv(dir) });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`chmod 600 ${join(dir, 'config.json')}`);
  });

  it('--token-stdin on a terminal asks with a hidden prompt (the token is never echoed)', async () => {
    const dir = tempDir();
    const login = await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: `${sandbox.adminToken}\n`, tty: true });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(sandbox.adminToken);
    expect(login.stderr).toContain('Access token');
  });

  it('does not save a token the instance rejects', async () => {
    const dir = tempDir();
    const result = await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: 'glpat-wrong' });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^hint: .* did not accept this token \(mistyped, expired or revoked\); nothing was saved$/m);
    expect(result.stderr).not.toContain('run: forgectl auth login'); // what the user is doing already
    expect((await run(['profile', 'list', '-o', 'json'], { env: profileEnv(dir) })).json()).toEqual([]);
  });

  it('needs --token-stdin without a terminal, and never takes a token as an argument', async () => {
    const dir = tempDir();
    expect((await run(['auth', 'login', '--url', sandbox.rootUrl], { env: profileEnv(dir) })).code).toBe(2);
    const set = await run(['profile', 'set', 'token', 'glpat-secret'], { env: profileEnv(dir) });
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('never accepted as an argument');
  });

  it('profile set says what a profile still needs; an empty value points to profile unset, which removes a key', async () => {
    const dir = tempDir();
    const env = profileEnv(dir);
    const saved = () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, unknown>> };
    // The README's line on a fresh config: the profile is made with that key alone, and told what it lacks.
    const ci = await run(['-p', 'ci', 'profile', 'set', 'token_command', 'pass show forge/ci'], { env });
    expect(ci).toMatchObject({ code: 0, stderr: 'Set token_command in new profile "ci"\nprofile "ci" has no url yet: set it with forgectl -p ci profile set url https://git.example.com\n' });
    expect(saved().profiles.ci).toEqual({ token_command: 'pass show forge/ci' });
    expect((await run(['-p', 'ci', 'profile', 'set', 'url', sandbox.rootUrl], { env })).stderr).toBe('Set url in profile "ci"\n');
    // An empty value is not a way to remove a key: nothing is stored, and the hint names the command that removes it.
    expect((await run(['-p', 'ci', 'profile', 'set', 'default_project', 'acme/api'], { env })).code).toBe(0);
    const empty = await run(['-p', 'ci', 'profile', 'set', 'default_project', ''], { env });
    expect(empty).toMatchObject({ code: 2, stderr: 'error: default_project: the value is empty\nhint: to remove default_project from the profile: forgectl -p ci profile unset default_project\n' });
    expect(saved().profiles.ci.default_project).toBe('acme/api');
    const unset = await run(['-p', 'ci', 'profile', 'unset', 'default_project'], { env });
    expect(unset).toMatchObject({ code: 0, stderr: 'Removed default_project from profile "ci"\n' });
    expect(saved().profiles.ci).toEqual({ token_command: 'pass show forge/ci', url: sandbox.rootUrl });
    expect((await run(['-p', 'ci', 'profile', 'unset', 'default_project'], { env })).stderr).toBe('profile "ci" has no default_project: nothing to remove\n');
    expect((await run(['-p', 'ci', 'profile', 'unset', 'token'], { env })).stderr).toBe('error: token is removed with the credentials\nhint: run: forgectl auth logout\n');
    // A profile other than the current one is named in the hint, quoted for the shell.
    expect((await run(['-p', 'my ci', 'profile', 'set', 'url', sandbox.rootUrl], { env })).code).toBe(0);
    expect((await run(['-p', 'my ci', 'profile', 'unset', 'token'], { env })).stderr).toBe('error: token is removed with the credentials\nhint: run: forgectl -p \'my ci\' auth logout\n');
    expect((await run(['-p', 'nope', 'profile', 'unset', 'timeout'], { env })).code).toBe(3);
  });

  it('profile set|unset: a profile named before the key points to -p NAME; a mistyped key gets the nearest one it takes', async () => {
    const dir = tempDir();
    const env = profileEnv(dir);
    expect(await run(['profile', 'set', 'dana', 'timeout', '10'], { env })).toMatchObject({
      code: 2,
      stderr: 'error: forgectl profile set takes 2 arguments (<key> <value>), got 3: "dana" "timeout" "10"\nhint: the profile is chosen with -p NAME: forgectl -p dana profile set timeout 10\n',
    });
    expect((await run(['profile', 'unset', 'dana', 'timeout'], { env })).stderr).toBe('error: forgectl profile unset takes 1 argument (<key>), got 2: "dana" "timeout"\nhint: the profile is chosen with -p NAME: forgectl -p dana profile unset timeout\n');
    // A value of several words, unquoted.
    expect((await run(['profile', 'set', 'token_command', 'pass', 'show', 'forge/ci'], { env })).stderr).toContain('hint: quote a value of several words: forgectl profile set token_command "pass show forge/ci"\n');
    expect((await run(['profile', 'unset', 'timeout', 'retries'], { env })).stderr).toContain('hint: forgectl profile unset --help describes its arguments\n');
    const keys = 'url, token_command, token_type, ca_file, insecure, allow_http, timeout, retries, output, default_group, default_project';
    expect(await run(['profile', 'set', 'timeoutt', '10'], { env })).toMatchObject({ code: 2, stderr: `error: unknown profile key "timeoutt"\nhint: did you mean timeout? (keys: ${keys})\n` });
    // The keys named are those set takes: not the token, nor the keyring reference.
    expect((await run(['profile', 'unset', 'xyzzy'], { env })).stderr).toBe(`error: unknown profile key "xyzzy"\nhint: keys: ${keys}\n`);
    expect((await run(['profile', 'list', '-o', 'json'], { env })).json()).toEqual([]); // nothing was written
  });

  it('profile list on a first run, before any login: no rows, and on stderr how to make a profile', async () => {
    const env = { FORGECTL_CONFIG_DIR: join(tempDir(), 'none-yet') };
    const first = await run(['profile', 'list'], { env, tty: true, columns: 80 });
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(first.stderr).toBe('no profiles yet: run forgectl auth login (or try forgectl sandbox first)\n');
    expect(await run(['profile', 'list', '-o', 'json'], { env })).toMatchObject({ code: 0, stdout: '[]\n' });
    expect((await run(['profile', 'list', '-q'], { env })).stderr).toBe('');
  });

  it('profile list at 80 columns: headers and URLs whole, the last columns left out and named', async () => {
    const dir = tempDir();
    const env = profileEnv(dir);
    await run(['profile', 'set', 'url', 'https://git.example.com'], { env });
    await run(['-p', 'dana', 'profile', 'set', 'url', 'https://dana.example.com'], { env });
    await run(['-p', 'dana', 'profile', 'set', 'default_project', 'acme/api'], { env });
    const narrow = await run(['profile', 'list', '--no-color'], { env, tty: true, columns: 80 });
    expect(narrow.stdout.split('\n')[0].split(/\s+/)).toEqual(['name', 'current', 'url', 'token_storage', 'default_project']);
    expect(narrow.stdout).toContain('https://dana.example.com');
    expect(narrow.stdout).not.toContain('…');
    expect(narrow.stderr).toBe('columns left out to fit the terminal: default_group (--fields picks them)\n');
    expect(Math.max(...narrow.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(80);
    const wide = await run(['profile', 'list', '--no-color'], { env, tty: true, columns: 120 });
    expect(wide.stdout.split('\n')[0].split(/\s+/)).toEqual(['name', 'current', 'url', 'token_storage', 'default_project', 'default_group']);
  });

  it('manages profiles: set, list, show (token redacted), use, remove', async () => {
    const dir = tempDir();
    const env = profileEnv(dir);
    await run(['auth', 'login', '--profile', 'a', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: sandbox.adminToken });
    await run(['auth', 'login', '--profile', 'b', '--url', `${sandbox.rootUrl}/api/v4`, '--token-stdin'], { env, input: sandbox.adminToken });
    expect((await run(['-p', 'b', 'profile', 'set', 'default_project', 'acme/api'], { env })).code).toBe(0);
    expect((await run(['-p', 'b', 'profile', 'set', 'timeout', 'soon'], { env })).code).toBe(2);
    const list = await run(['profile', 'list', '-o', 'json'], { env });
    expect(list.json()).toMatchObject([{ name: 'a', current: true, auth: 'token' }, { name: 'b', current: false, default_project: 'acme/api' }]);
    const show = await run(['profile', 'show', 'b', '-o', 'json'], { env });
    expect(show.json()).toMatchObject({ name: 'b', url: sandbox.rootUrl, token: '[REDACTED]' });
    expect(show.stdout).not.toContain(sandbox.adminToken);
    expect((await run(['profile', 'use', 'b'], { env })).code).toBe(0);
    expect((await run(['profile', 'use', 'nope'], { env })).code).toBe(3);
    const unasked = await run(['profile', 'remove', 'a'], { env }); // no terminal, no --yes
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain(`error: confirmation needed: Remove profile "a" and its token, kept in the config file ${join(dir, 'config.json')}? forgectl keeps no other copy of it, and it stays valid on ${sandbox.rootUrl} until it is revoked; to revoke it first, run: forgectl -p a auth token | forgectl -p a tokens identify --revoke --yes (a personal token; a group's or project's access token: forgectl tokens revoke ID --group G or --project P)\n`);
    expect((await run(['profile', 'remove', 'a', '--yes'], { env })).code).toBe(0);
    expect((await run(['profile', 'list', '-o', 'json'], { env })).json()).toMatchObject([{ name: 'b', current: true }]);
    // Removing the current profile leaves none current: both the removal and the next command say how to pick one.
    await run(['auth', 'login', '--profile', 'c', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: sandbox.adminToken });
    const removed = await run(['profile', 'remove', 'b', '--yes'], { env });
    expect(removed.stderr).toContain('no profile is current now; pick one: forgectl profile use c');
    const next = await run(['api', '/user'], { env });
    expect(next.code).toBe(3);
    expect(next.stderr).toBe('error: no profile is current\nhint: pick one: forgectl profile use c, or pass -p NAME\n');
  });

  it('prints the active token with auth token, and logout removes it', async () => {
    const dir = tempDir();
    const env = profileEnv(dir);
    await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env, input: sandbox.adminToken });
    expect((await run(['auth', 'token'], { env })).stdout).toBe(`${sandbox.adminToken}\n`);
    // The token may be its only copy: off a terminal, logout without --yes removes nothing (exit 2) and says where it
    // is kept, that it stays valid on the instance, and how to revoke it.
    const unasked = await run(['auth', 'logout'], { env });
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toBe(
      `error: confirmation needed: Remove the token of profile "default" from the config file ${join(dir, 'config.json')}? forgectl keeps no other copy of it, and it stays valid on ${sandbox.rootUrl} until it is revoked; to revoke it first, run: forgectl -p default auth token | forgectl -p default tokens identify --revoke --yes (a personal token; a group's or project's access token: forgectl tokens revoke ID --group G or --project P)\nhint: pass --yes to confirm without a terminal\n`,
    );
    expect((await run(['auth', 'token'], { env })).stdout).toBe(`${sandbox.adminToken}\n`);
    const logout = await run(['auth', 'logout', '--yes'], { env });
    expect(logout.code).toBe(0);
    expect(logout.stderr).toBe('Removed the credentials of profile "default"\n');
    expect((await run(['api', '/user'], { env })).code).toBe(3);
    const again = await run(['auth', 'logout'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('profile "default" holds no credentials: nothing to remove\n');
    const unknown = await run(['-p', 'nope', 'auth', 'logout'], { env });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toBe('error: no profile named "nope"\nhint: run: forgectl profile list\n');
  });

  it('a value edited by hand into the config file is a configuration error (exit 3) naming the profile and the key', async () => {
    const dir = tempDir();
    for (const [key, value, message] of [
      ['timeout', 'abc', 'timeout must be a whole number'],
      ['retries', -1, 'retries must be'],
      ['url', 'git.example.com', 'invalid URL'],
      ['insecure', 'yes please', 'insecure must be true or false'],
      ['output', 'xml', 'output must be one of'],
    ] as const) {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'p', profiles: { p: { url: sandbox.rootUrl, token: sandbox.adminToken, [key]: value } } }), { mode: 0o600 });
      const result = await run(['api', '/user'], { env: profileEnv(dir) });
      expect(result.code, key).toBe(3);
      expect(result.stderr, key).toContain(message);
      expect(result.stderr, key).toContain('profile "p"');
      const fix = /^hint: fix it with: forgectl (.*) VALUE$/m.exec(result.stderr);
      expect(fix, key).not.toBeNull();
      expect(result.stderr, key).not.toContain(sandbox.adminToken);
      // The command the hint gives works.
      expect((await run(fix![1].replace(' profile set ', ' profile unset ').split(' '), { env: profileEnv(dir) })).code, key).toBe(0);
      expect((await run(['api', '/user'], { env: profileEnv(dir) })).code, key).toBe(key === 'url' ? 3 : 0);
    }
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'p', profiles: { p: { output: 'xml' } } }), { mode: 0o600 });
    expect((await run(['profile', 'list'], { env: profileEnv(dir) })).code).toBe(3); // no connection needed, the same error
  });

  it('auth status shows the user, scopes and expiry, and warns when it is near', async () => {
    const root = users(sandbox.db).find((u) => u.username === 'root')!;
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const token = addToken(sandbox.db, root, { name: 'short-lived', scopes: ['read_api'], expires_at: soon }, new Date());
    const result = await sandbox.run(['auth', 'status', '-o', 'json'], { env: { FORGECTL_TOKEN: token.token } });
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ user: 'root', admin: true, token_name: 'short-lived', scopes: ['read_api'], expires_at: soon, days_left: 5 });
    expect(result.stderr).toContain('warning: the token expires in 5 days');
    const quiet = await sandbox.run(['auth', 'status', '-o', 'json']);
    expect(quiet.stderr).not.toContain('warning');
  });
});

describe('resolution order: flags → environment → profile → CI job', () => {
  const config = { current: 'p', profiles: { p: { url: 'https://profile.example.com', token: 'profile-token', timeout: 12 } } };

  it('prefers flags, then the environment, then the profile', () => {
    expect(resolveConnection({}, {}, config)).toMatchObject({ baseUrl: 'https://profile.example.com/api/v4', token: 'profile-token', timeoutMs: 12_000 });
    expect(resolveConnection({}, { FORGECTL_URL: 'https://env.example.com', FORGECTL_TOKEN: 'env-token' }, config)).toMatchObject({ baseUrl: 'https://env.example.com/api/v4', token: 'env-token', tokenSource: 'environment' });
    expect(resolveConnection({ server: 'https://flag.example.com/api/v4/', timeout: 5 }, { FORGECTL_URL: 'https://env.example.com', FORGECTL_TOKEN: 'env-token' }, config)).toMatchObject({ baseUrl: 'https://flag.example.com/api/v4', timeoutMs: 5000, token: 'env-token' });
  });

  it('a profile named with -p or FORGECTL_PROFILE wins over FORGECTL_TOKEN, said once on stderr; one without a token is refused', async () => {
    const named = resolveConnection({ profile: 'p' }, { FORGECTL_TOKEN: 'env-token' }, config);
    expect(named).toMatchObject({ token: 'profile-token', tokenSource: 'profile', notice: 'FORGECTL_TOKEN is set, but -p p names a profile: using the token of profile "p"' });
    expect(resolveConnection({}, { FORGECTL_PROFILE: 'p', FORGECTL_TOKEN: 'env-token' }, config)).toMatchObject({ token: 'profile-token', notice: expect.stringContaining('FORGECTL_PROFILE=p names a profile') });
    // The current profile is not named: FORGECTL_TOKEN overrides its token, as the environment overrides profiles.
    expect(resolveConnection({}, { FORGECTL_TOKEN: 'env-token' }, config)).toMatchObject({ token: 'env-token', tokenSource: 'environment' });
    expect(resolveConnection({}, { FORGECTL_TOKEN: 'env-token' }, config).notice).toBeUndefined();
    const tokenless = { current: 'p', profiles: { ...config.profiles, bare: { url: 'https://profile.example.com' } } };
    expect(() => resolveConnection({ profile: 'bare' }, { FORGECTL_TOKEN: 'env-token' }, tokenless)).toThrow(/-p bare names profile "bare", which has no token; FORGECTL_TOKEN is set too/);

    // As a user meets it: after `eval "$(forgectl sandbox --print-env)"` (root's token in FORGECTL_TOKEN), -p runs as the profile.
    const dir = tempDir();
    const developer = sandbox.tokenWithRole('developer');
    expect((await run(['auth', 'login', '--profile', 'dev', '--url', sandbox.rootUrl, '--token-stdin'], { env: profileEnv(dir), input: developer })).code).toBe(0);
    const asDev = await run(['-p', 'dev', 'api', '/user', '--jq', '.username'], { env: { ...profileEnv(dir), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken } });
    expect(asDev.code, asDev.stderr).toBe(0);
    expect(asDev.stdout).toBe('developer-of-acme\n');
    expect(asDev.stderr.match(/FORGECTL_TOKEN is set, but -p dev names a profile/g)).toHaveLength(1);
  });

  it('sends a profile\'s token only to that profile\'s instance: --server picks the profile whose URL matches', () => {
    const two = { current: 'prod', profiles: { prod: { url: 'https://git.example.com', token: 'prod-token' }, lab: { url: 'https://lab.example.com/', token: 'lab-token', timeout: 7 } } };
    expect(resolveConnection({ server: 'https://lab.example.com/api/v4' }, {}, two)).toMatchObject({ profileName: 'lab', token: 'lab-token', timeoutMs: 7000 });
    expect(resolveConnection({}, { FORGECTL_URL: 'https://GIT.example.com:443' }, two)).toMatchObject({ profileName: 'prod', token: 'prod-token' });
    // Another host: no profile's token goes there; FORGECTL_TOKEN must be given.
    expect(() => resolveConnection({ server: 'https://other.example.com' }, {}, two)).toThrow(/no token for https:\/\/other\.example\.com: no profile is for this instance/);
    expect(() => resolveConnection({}, { FORGECTL_URL: 'http://127.0.0.1:9' }, two)).toThrow(ConfigError);
    expect(resolveConnection({ server: 'https://other.example.com' }, { FORGECTL_TOKEN: 'env-token' }, two)).toMatchObject({ token: 'env-token', profileName: undefined });
    // -p names a profile for another instance than --server: refused rather than sending its token there.
    expect(() => resolveConnection({ profile: 'prod', server: 'https://lab.example.com' }, {}, two)).toThrow(/profile "prod" is for https:\/\/git\.example\.com, not https:\/\/lab\.example\.com/);
    // A CI job token goes only to the job's own instance.
    const ci = { CI_SERVER_URL: 'https://ci.example.com', CI_JOB_TOKEN: 'job-token' };
    expect(resolveConnection({}, ci, { profiles: {} })).toMatchObject({ token: 'job-token' });
    expect(() => resolveConnection({ server: 'https://elsewhere.example.com' }, ci, { profiles: {} })).toThrow(ConfigError);
  });

  it('exits 3 with a hint when --server names an instance no profile is for', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'sb', profiles: { sb: { url: sandbox.rootUrl, token: sandbox.adminToken } } }), { mode: 0o600 });
    sandbox.clearRequests();
    const result = await run(['--server', 'http://127.0.0.2:9', 'api', '/user'], { env: profileEnv(dir) });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('hint: set FORGECTL_TOKEN, or log in to it: forgectl auth login --url http://127.0.0.2:9');
    const own = await run(['--server', `${sandbox.rootUrl}/api/v4/`, 'api', '/user'], { env: profileEnv(dir) });
    expect(own.code).toBe(0);
  });

  it('refuses api with a full URL on another instance', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['api', 'http://127.0.0.2:9/api/v4/user']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: http://127.0.0.2:9/api/v4/user is not on the instance in use');
    const same = await sandbox.run(['api', `${sandbox.url}/user`]);
    expect(same.code).toBe(0);
    expect(same.json().username).toBe('root');
  });

  it('falls back to the CI job environment with a JOB-TOKEN', () => {
    const connection = resolveConnection({}, { CI_API_V4_URL: 'https://ci.example.com/api/v4', CI_JOB_TOKEN: 'job-token' }, { profiles: {} });
    expect(connection).toMatchObject({ baseUrl: 'https://ci.example.com/api/v4', token: 'job-token', tokenType: 'job', tokenSource: 'ci_job' });
  });

  it('runs token_command for the token', () => {
    const withCommand = { current: 'c', profiles: { c: { url: 'https://x.example.com', token_command: 'echo from-command' } } };
    expect(resolveConnection({}, { PATH: process.env.PATH }, withCommand).token).toBe('from-command');
  });

  it('refuses plain http to a non-loopback host unless the profile allows it', () => {
    const plain = { current: 'h', profiles: { h: { url: 'http://git.example.com', token: 't' } } };
    expect(() => resolveConnection({}, {}, plain)).toThrow(/plain http/);
    expect(resolveConnection({}, {}, { current: 'h', profiles: { h: { ...plain.profiles.h, allow_http: true } } }).baseUrl).toBe('http://git.example.com/api/v4');
    expect(resolveConnection({}, {}, { current: 'h', profiles: { h: { url: 'http://127.0.0.1:8080', token: 't' } } }).baseUrl).toBe('http://127.0.0.1:8080/api/v4');
  });

  it('sends a CI job token as JOB-TOKEN, which the sandbox accepts', async () => {
    const root = users(sandbox.db).find((u) => u.username === 'root')!;
    const job = addToken(sandbox.db, root, { kind: 'job', name: 'job', scopes: [] }, new Date());
    const result = await run(['-v', 'api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir(), CI_SERVER_URL: sandbox.rootUrl, CI_JOB_TOKEN: job.token } });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/job-token: \[REDACTED\]/i);
    expect(tokens(sandbox.db).find((t) => t.id === job.id)!.last_used_at).not.toBeNull();
  });

  it('when a CI job token is refused, the hint speaks of job-token permissions, not of logging in', async () => {
    const result = await run(['api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir(), CI_SERVER_URL: sandbox.rootUrl, CI_JOB_TOKEN: 'not-a-valid-job-token' } });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/\(CI job token\) \(GET \/user → 401\)\nhint: a CI job token reaches only what job tokens may/);
    expect(result.stderr).toContain('FORGECTL_TOKEN');
    expect(result.stderr).not.toContain('auth login');
  });

  it('a token variable with a CR or a newline around it is trimmed; one with a control character inside is exit 3, nothing sent, the token not shown', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl };
    // `export FORGECTL_TOKEN=$(cat token.txt)` of a file saved with CRLF keeps the CR.
    const crlf = await run(['api', '/user', '--jq', '.username'], { env: { ...env, FORGECTL_TOKEN: `${sandbox.adminToken}\r` } });
    expect(crlf.code, crlf.stderr).toBe(0);
    expect(crlf.stdout).toBe('root\n');
    sandbox.clearRequests();
    const inside = await run(['api', '/user'], { env: { ...env, FORGECTL_TOKEN: `${sandbox.adminToken.slice(0, 6)}\u0007${sandbox.adminToken.slice(6)}` } });
    expect(inside.code).toBe(3);
    expect(inside.stderr).toBe('error: FORGECTL_TOKEN holds a control character (U+0007) at position 7, which no token has; nothing was sent\nhint: set it again to the token alone, as the service showed it\n');
    expect(sandbox.requests()).toEqual([]);
    const profile = { current: 'p', profiles: { p: { url: 'https://x.example.com', token: 'glpat-ab\u00e9c' } } };
    expect(() => resolveConnection({}, {}, profile)).toThrow('the token of profile "p" holds a character outside ASCII (U+00E9) at position 9');
  });

  it('a token from FORGECTL_TOKEN that the instance refuses (401) points at the variable, not at auth login', async () => {
    const fromEnv = await run(['projects', 'list'], { env: { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: 'glpat-revokedorwrong00000' } });
    expect(fromEnv.code).toBe(4);
    expect(fromEnv.stderr).toBe('error: 401 Unauthorized (GET /projects → 401)\nhint: the token in FORGECTL_TOKEN is refused (expired, revoked, or of another instance): set it to a valid token; forgectl auth login does not change it\n');
    // A profile's token: logging in again is the fix.
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'p', profiles: { p: { url: sandbox.rootUrl, token: 'glpat-revokedorwrong00000' } } }), { mode: 0o600 });
    const fromProfile = await run(['projects', 'list'], { env: { FORGECTL_CONFIG_DIR: dir } });
    expect(fromProfile.stderr).toContain('run: forgectl auth login');
  });

  it('in a CI job: an empty FORGECTL_TOKEN, or a token in another tool\'s variable, is said as such (exit 3), not "run auth login"', async () => {
    const ci = { FORGECTL_CONFIG_DIR: tempDir(), CI: 'true', FORGECTL_URL: sandbox.rootUrl };
    const empty = await run(['api', '/user'], { env: { ...ci, FORGECTL_TOKEN: '' } });
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('hint: FORGECTL_TOKEN is set but empty: in a CI job, a protected variable reaches only protected branches and tags\n');
    const other = await run(['api', '/user'], { env: { ...ci, GITLAB_TOKEN: sandbox.adminToken } });
    expect(other.code).toBe(3);
    expect(other.stderr).toContain('hint: GITLAB_TOKEN is set, but forgectl reads its token from FORGECTL_TOKEN: export FORGECTL_TOKEN="$GITLAB_TOKEN"\n');
    expect(other.stderr).not.toContain(sandbox.adminToken);
    const none = await run(['api', '/user'], { env: { FORGECTL_CONFIG_DIR: tempDir(), CI: 'true' } });
    expect(none.stderr).toBe('error: no instance configured\nhint: set FORGECTL_URL and FORGECTL_TOKEN (a masked CI/CD variable)\n');
    const badUrl = await run(['api', '/user'], { env: { ...ci, FORGECTL_URL: 'git.example.com', FORGECTL_TOKEN: 't' } });
    expect(badUrl.code).toBe(3);
    expect(badUrl.stderr).toContain('error: FORGECTL_URL: invalid URL: git.example.com\n');
  });

  it('a config this user cannot read is left aside, with a warning, when the environment alone configures the run', async () => {
    // A container run as another user than its HOME's owner reads EACCES; a folder in its place (EISDIR) is the same
    // failure for a test run as root.
    const dir = tempDir();
    mkdirSync(join(dir, 'config.json'));
    const ci = { FORGECTL_CONFIG_DIR: dir, FORGECTL_URL: sandbox.rootUrl };
    const fromEnv = await run(['api', '/user', '--jq', '.username'], { env: { ...ci, FORGECTL_TOKEN: sandbox.adminToken } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toBe('root\n');
    expect(fromEnv.stderr).toBe(`warning: cannot read config ${join(dir, 'config.json')}: it is a folder; the environment configures this run, so it is left aside\n`);
    // Without a token in the environment, or with a profile named, the config is needed: exit 3 saying what to do.
    for (const extra of [{}, { FORGECTL_TOKEN: sandbox.adminToken, FORGECTL_PROFILE: 'ci' }]) {
      const needed = await run(['api', '/user'], { env: { ...ci, ...extra } });
      expect(needed.code).toBe(3);
      expect(needed.stderr).toContain(`error: cannot read config ${join(dir, 'config.json')}: it is a folder\nhint: make it readable to this user, or set FORGECTL_CONFIG_DIR to a folder of its own\n`);
    }
  });

  it('auth login where the config folder cannot be made says so, and where to point FORGECTL_CONFIG_DIR instead', async () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    const dir = join(file, 'forgectl');
    const login = await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: { FORGECTL_CONFIG_DIR: dir }, input: sandbox.adminToken });
    expect(login.code).toBe(2);
    expect(login.stderr).toBe(`error: cannot write ${dir}: a part of the path is not a folder\nhint: set FORGECTL_CONFIG_DIR to a folder this user can write (a read-only or foreign HOME)\n`);
  });

  it('reports an unreadable config file as exit 3', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{ not json');
    expect((await run(['profile', 'list'], { env: profileEnv(dir) })).code).toBe(3);
  });
});

describe('auth login with a narrow token', () => {
  it('accepts a token whose only scope is self_rotate (403 insufficient_scope proves it is valid)', async () => {
    const sandbox = await startTestSandbox();
    try {
      const root = users(sandbox.db).find((u) => u.username === 'root')!;
      const rotator = addToken(sandbox.db, root, { scopes: ['self_rotate'] }, new Date());
      const dir = tempDir();
      const result = await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: { FORGECTL_CONFIG_DIR: dir }, input: rotator.token });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('without API read scope');
      const bad = await run(['auth', 'login', '--url', sandbox.rootUrl, '--token-stdin'], { env: { FORGECTL_CONFIG_DIR: dir }, input: 'glpat-wrong' });
      expect(bad.code).toBe(4);
    } finally {
      await sandbox.close();
    }
  });
});
