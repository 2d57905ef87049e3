import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type RunOptions, tempDir, type TestSandbox, useTestSandbox } from '../helpers/cli.js';
import { tokens } from '../../src/sandbox/model.js';
import { tokenLockPath } from '../../src/commands/tokens/rotation.js';

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);
const posts = () => sandbox.requests().filter((r) => r.method !== 'GET');

/** A group token created through the CLI, and a config folder with profile "bot" logged in with it. */
async function botProfile(scopes = 'api'): Promise<{ id: number; token: string; dir: string; run: (argv: string[], options?: RunOptions) => ReturnType<TestSandbox['run']> }> {
  const created = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'cron-bot', '--scopes', scopes, '--access-level', 'maintainer', '--expires-at', day(20), '-o', 'json']);
  expect(created.code).toBe(0);
  const { id, token } = created.json<{ id: number; token: string }>();
  const dir = tempDir();
  const asBot = (argv: string[], options: RunOptions = {}) =>
    sandbox.run(argv, { ...options, env: { FORGECTL_CONFIG_DIR: dir, FORGECTL_TOKEN: undefined, FORGECTL_URL: undefined, ...options.env } });
  // auth login checks a token with GET /user, which a token with only self_rotate may not call.
  const verify = scopes.split(',').some((s) => ['api', 'read_api'].includes(s)) ? [] : ['--no-verify'];
  const login = await asBot(['auth', 'login', '--profile', 'bot', '--url', sandbox.rootUrl, '--token-stdin', ...verify], { input: `${token}\n` });
  expect(login.code).toBe(0);
  return { id, token, dir, run: asBot };
}

const profileToken = (dir: string): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;
const tokenStatus = (value: string) => fetch(`${sandbox.rootUrl}/api/v4/personal_access_tokens/self`, { headers: { 'PRIVATE-TOKEN': value } }).then((r) => r.status);

/**
 * Why `chattr +i` cannot be used here (undefined where it can): it needs root (CAP_LINUX_IMMUTABLE), e2fsprogs and a
 * filesystem with attributes. .ci/run has them; a user's machine may not, and those cases are then skipped saying so.
 */
const noImmutable: string | undefined = (() => {
  const probe = tempDir();
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'chattr +i is not available here (it needs root, e2fsprogs and a filesystem with attributes)';
  }
})();

describe('tokens list, get, create, revoke', () => {
  it('lists group tokens with the access level by name, in json and as TSV', async () => {
    const json = await sandbox.run(['tokens', 'list', '--group', 'acme', '--search', 'acme-ci', '-o', 'json']);
    expect(json.code).toBe(0);
    const [seeded] = json.json<Array<Record<string, unknown>>>();
    expect(seeded).toMatchObject({ name: 'acme-ci', access_level: 40, access_level_name: 'maintainer', scopes: ['api'] });
    expect(seeded.token).toBeUndefined();
    const tsv = await sandbox.run(['tokens', 'list', '--group', 'acme', '--search', 'acme-ci']);
    expect(tsv.stdout).toBe(`${seeded.id}\tacme-ci\tapi\tmaintainer\ttrue\t${seeded.expires_at}\t\n`);
  });

  it('passes every filter to the service and checks them first', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run([
      'tokens', 'list', '--project', 'acme/api', '--state', 'active', '--revoked', '--search', 'dep', '--sort', 'expires_asc',
      '--created-after', '2020-01-01T00:00:00Z', '--created-before', '2100-01-01', '--expires-after', '2020-01-01', '--expires-before', '2100-01-01',
      '--last-used-after', '2020-01-01', '--last-used-before', '2100-01-01', '--per-page', '5',
    ]);
    expect(result.code).toBe(0);
    const url = new URL(sandbox.requests()[0].path, 'http://x');
    expect(url.pathname).toBe('/api/v4/projects/acme%2Fapi/access_tokens');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      state: 'active', revoked: 'true', search: 'dep', sort: 'expires_asc', created_after: '2020-01-01T00:00:00Z', expires_before: '2100-01-01', last_used_after: '2020-01-01', per_page: '5',
    });

    sandbox.clearRequests();
    for (const argv of [
      ['tokens', 'list', '--group', 'acme', '--sort', 'newest'],
      ['tokens', 'list', '--group', 'acme', '--expires-before', '31-01-2026'],
      ['tokens', 'list'],
      ['tokens', 'list', '--group', 'acme', '--personal'],
      ['tokens', 'list', '--group', 'acme', '--user', '3'],
    ]) expect((await sandbox.run(argv)).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('lists personal tokens, narrowed to a user for administrators', async () => {
    const result = await sandbox.run(['tokens', 'list', '--personal', '--user', '2', '-o', 'json']);
    expect(result.json<Array<{ name: string }>>().map((t) => t.name)).toEqual(['alice-token']);
    // Whose each token is, not an access level (personal tokens have none).
    const csv = await sandbox.run(['tokens', 'list', '--personal', '--user', '2', '-o', 'csv']);
    expect(csv.stdout).toMatch(/^id,name,user_id,scopes,active,expires_at,last_used_at\r\n\d+,alice-token,2,api,true,/);
  });

  it('--user takes a username as well as an id; unknown users are refused before anything is sent', async () => {
    const byName = await sandbox.run(['tokens', 'list', '--personal', '--user', 'alice', '-o', 'json']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.json<Array<{ name: string; user_id: number }>>()).toEqual([expect.objectContaining({ name: 'alice-token', user_id: 2 })]);
    const made = await sandbox.run(['tokens', 'create', '--personal', '--user', 'bob', '--name', 'bob-by-name', '--scopes', 'read_api', '-o', 'json']);
    expect(made.json()).toMatchObject({ name: 'bob-by-name', user_id: 3 });
    sandbox.clearRequests();
    const unknown = await sandbox.run(['tokens', 'list', '--personal', '--user', 'nobody-by-this-name']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('error: unknown user: nobody-by-this-name');
  });

  it('impersonation tokens are listed, shown and revoked as such (--personal --user NAME --impersonation)', async () => {
    const made = await sandbox.run(['tokens', 'create', '--personal', '--user', 'alice', '--impersonation', '--name', 'support', '--scopes', 'read_api', '--expires-in', '2d', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    const { id, token } = made.json<{ id: number; token: string }>();
    const listed = await sandbox.run(['tokens', 'list', '--personal', '--user', 'alice', '--impersonation', '--state', 'active', '-o', 'json']);
    expect(listed.json()).toEqual([expect.objectContaining({ id, name: 'support', impersonation: true, user_id: 2 })]);
    expect((await sandbox.run(['tokens', 'list', '--personal', '--user', 'alice', '--impersonation', '--search', 'x'])).stderr).toContain('--search is not a filter of impersonation tokens');
    const shown = await sandbox.run(['tokens', 'get', String(id), '--personal', '--user', '2', '--impersonation', '-o', 'json']);
    expect(shown.json()).toMatchObject({ id, name: 'support', impersonation: true, active: true });
    expect((await sandbox.run(['tokens', 'get', String(id), '--personal', '--user', 'alice'])).code).toBe(2); // --user names impersonation tokens here

    const asked = await sandbox.run(['tokens', 'revoke', String(id), '--personal', '--user', 'alice', '--impersonation']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(`confirmation needed: Revoke impersonation token ${id} of user alice?`);
    const revoked = await sandbox.run(['tokens', 'revoke', String(id), '--personal', '--user', 'alice', '--impersonation', '--yes']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`Revoked impersonation token "support" (id ${id}, scopes read_api, expires ${day(2)}) of user alice`);
    expect((await sandbox.call('GET', '/user', undefined, token)).status).toBe(401);
    expect((await sandbox.run(['tokens', 'list', '--personal', '--user', 'alice', '--impersonation', '--state', 'active', '-o', 'json'])).json()).toEqual([]);
  });

  it('creates a group token and prints it, warning once on a terminal', async () => {
    const result = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'term', '--scopes', 'read_api,self_rotate', '--access-level', 'developer', '--expires-at', day(10), '--description', 'demo'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/store this token now/);
    const record = tokens(sandbox.db).find((t) => t.name === 'term')!;
    expect(record).toMatchObject({ scopes: ['read_api', 'self_rotate'], access_level: 30, description: 'demo', expires_at: day(10) });
    expect(result.stdout).toContain(record.token);
  });

  it('--output-file writes the new token there (mode 0600) and never to stdout; an existing file is not replaced unasked, and nothing is created then', async () => {
    const file = join(tempDir(), 'release.token');
    const saved = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'to-file', '--scopes', 'read_api', '--expires-in', '30d', '--output-file', file, '-o', 'json'], { tty: true });
    expect(saved.code, saved.stderr).toBe(0);
    const record = tokens(sandbox.db).find((t) => t.name === 'to-file')!;
    expect(readFileSync(file, 'utf8')).toBe(`${record.token}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(saved.stdout).not.toContain(record.token);
    expect(saved.json()).toMatchObject({ id: record.id, name: 'to-file', access_level_name: 'maintainer' });
    expect(saved.json()).not.toHaveProperty('token');
    expect(saved.stderr).toContain(`Wrote token ${record.id} of project acme/api ("to-file") to ${file} (mode 0600)`);
    expect(saved.stderr).not.toMatch(/store this token now/);
    // A personal token for a user, the same way.
    const personal = join(tempDir(), 'bob.token');
    const bob = await sandbox.run(['tokens', 'create', '--personal', '--user', 'bob', '--name', 'bob-file', '--scopes', 'read_api', '--output-file', personal]);
    expect(bob.code, bob.stderr).toBe(0);
    expect(readFileSync(personal, 'utf8')).toBe(`${tokens(sandbox.db).find((t) => t.name === 'bob-file')!.token}\n`);
    expect(bob.stdout).not.toContain(readFileSync(personal, 'utf8').trim());
    // An existing file: off a terminal without --yes nothing is created and the file stays.
    writeFileSync(file, 'keep me\n');
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'again', '--scopes', 'read_api', '--output-file', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`confirmation needed: Replace ${file} with the new project token?`);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(posts()).toEqual([]);
  });

  it('accepts an expiry of today (the service keeps a token valid through its expiry day)', async () => {
    const result = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'today', '--scopes', 'read_api', '--expires-at', day(0), '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ name: 'today', expires_at: day(0) });
  });

  it('refuses bad input before sending: scopes, level, expiry beyond a year or past, personal without --user', async () => {
    sandbox.clearRequests();
    const base = ['tokens', 'create', '--group', 'acme', '--name', 'x'];
    for (const argv of [
      [...base, '--scopes', 'api,root'],
      [...base, '--scopes', 'sudo'],
      [...base, '--scopes', 'api', '--access-level', 'admin'],
      [...base, '--scopes', 'api', '--expires-at', day(400)],
      [...base, '--scopes', 'api', '--expires-at', day(-1)],
      [...base, '--scopes', 'api', '--expires-at', '2026-02-30'],
      [...base, '--scopes', 'api', '--expires-in', '400d'],
      [...base, '--scopes', 'api', '--expires-in', 'soon'],
      [...base, '--scopes', 'api', '--expires-in', '30d', '--expires-at', day(30)],
      ['tokens', 'create', '--personal', '--name', 'x', '--scopes', 'api'],
    ]) expect((await sandbox.run(argv)).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('creates a token that expires in a duration from today (--expires-in, as rotate takes)', async () => {
    const result = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'in-30d', '--scopes', 'read_api', '--expires-in', '30d', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ name: 'in-30d', expires_at: day(30) });
  });

  it('creates a personal token for a user as administrator (number as access level is for resources only)', async () => {
    const result = await sandbox.run(['tokens', 'create', '--personal', '--user', '3', '--name', 'bob-ci', '--scopes', 'read_api,read_user', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ name: 'bob-ci', user_id: 3, token: expect.any(String) });
    const alice = tokens(sandbox.db).find((t) => t.name === 'alice-token')!.token;
    const denied = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'x', '--scopes', 'api'], { env: { FORGECTL_TOKEN: alice } });
    expect(denied.code).toBe(4);
  });

  it('gets by id and self', async () => {
    const bot = await botProfile();
    const self = await bot.run(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme', '-o', 'json']);
    expect(self.code).toBe(0);
    expect(self.json()).toMatchObject({ id: bot.id, name: 'cron-bot', access_level_name: 'maintainer' });
    expect((await sandbox.run(['tokens', 'get', '999999', '--group', 'acme'])).code).toBe(5);
    expect((await sandbox.run(['tokens', 'get', 'me', '--group', 'acme'])).code).toBe(2);
  });

  it('says so when self under a group is not the token in use (a personal token), for get and rotate', async () => {
    for (const verb of [['get'], ['rotate', '--yes', '--print-token']]) {
      const result = await sandbox.run(['tokens', verb[0], 'self', '--group', 'acme', ...verb.slice(1)]);
      expect(result.code, verb[0]).toBe(5);
      expect(result.stderr, verb[0]).toContain('hint: the token in use is not an access token of group acme; a personal token reads itself with --personal');
    }
    // No such group: not the token's hint, but where to find the group meant.
    const missing = (await sandbox.run(['tokens', 'get', 'self', '--group', 'nope'])).stderr;
    expect(missing).not.toContain('the token in use');
    expect(missing).toContain('hint: forgectl groups list --search nope lists the groups you can see');
  });

  it('revokes after confirmation; without --yes off a terminal nothing is sent', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    expect((await sandbox.run(['tokens', 'revoke', String(bot.id), '--group', 'acme'])).code).toBe(2);
    expect(posts()).toEqual([]);
    expect((await sandbox.run(['tokens', 'revoke', 'self', '--group', 'acme', '--yes'])).code).toBe(2);
    const revoked = await sandbox.run(['tokens', 'revoke', String(bot.id), '--group', 'acme', '--yes']);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toMatch(/Revoked token "\S+" \(id \d+, scopes api, expires \d{4}-\d\d-\d\d\) of group acme/);
    expect(await tokenStatus(bot.token)).toBe(401);
    const again = await sandbox.run(['tokens', 'revoke', String(bot.id), '--group', 'acme', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/is already revoked; nothing to revoke/);
  });
});

describe('tokens rotate', () => {
  it('rotates self into the profile without printing the token; the old one is dead, the new one works', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    const result = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--expires-in', '30d', '--yes', '-o', 'json']);
    expect(result.code).toBe(0);
    const saved = profileToken(bot.dir);
    expect(saved).not.toBe(bot.token);
    expect(result.stdout + result.stderr).not.toContain(saved);
    expect(result.json()).toMatchObject({ name: 'cron-bot', expires_at: day(30), access_level_name: 'maintainer' });
    expect(result.json().token).toBeUndefined();
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toHaveLength(1);
    expect(await tokenStatus(bot.token)).toBe(401);
    expect((await bot.run(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme'])).code).toBe(0);
    expect(readdirSync(join(bot.dir, 'recovery'))).toEqual([]);
    expect(statSync(join(bot.dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it('rotates a token that has only the self_rotate scope', async () => {
    const bot = await botProfile('self_rotate');
    const result = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes']);
    expect(result.code).toBe(0);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
    expect(await tokenStatus(bot.token)).toBe(401);
  });

  it('prints the new token when there is no save target, and writes --output-file with mode 0600', async () => {
    const bot = await botProfile();
    const printed = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes', '-o', 'json']);
    expect(printed.code).toBe(0);
    const fresh = printed.json<{ id: number; token: string }>();
    expect(await tokenStatus(fresh.token)).toBe(200);

    const file = join(tempDir(), 'token');
    const toFile = await sandbox.run(['tokens', 'rotate', String(fresh.id), '--group', 'acme', '--output-file', file, '--yes']);
    expect(toFile.code).toBe(0);
    const value = readFileSync(file, 'utf8').trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(toFile.stdout).not.toContain(value);
    expect(await tokenStatus(value)).toBe(200);
  });

  it('in a CI job off a terminal, a rotation with no save target stops before sending (the job log is not a place for the token); --print-token or a save target goes ahead', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    const rotate = ['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes'];
    for (const env of [{ CI: 'true' }, { CI: '1', GITLAB_CI: 'true' }]) {
      const refused = await sandbox.run(rotate, { env });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain('error: this is a CI job (CI is set) and stdout is not a terminal: the new token would be printed into the job log');
      expect(refused.stderr).toContain('hint: save it with --output-file FILE, --save-to ci-var:PROJECT_OR_GROUP/KEY or exec:COMMAND, or --save-to-profile; or, if stdout is captured and the log never sees it, give --print-token');
    }
    expect(posts()).toEqual([]);
    expect(await tokenStatus(bot.token)).toBe(200);
    // --print-token beside a save target is a contradiction: refused too, nothing sent.
    const both = await sandbox.run([...rotate, '--print-token', '--output-file', join(tempDir(), 'token')], { env: { CI: 'true' } });
    expect(both.code, both.stderr).toBe(2);
    expect(both.stderr).toContain('error: --print-token: the new token is saved to file ');
    expect(posts()).toEqual([]);
    // CI=false is no CI job; --print-token in one prints it; a save target keeps it off stdout.
    const notCi = await sandbox.run([...rotate, '-o', 'json'], { env: { CI: 'false' } });
    expect(notCi.code, notCi.stderr).toBe(0);
    const printed = await sandbox.run(['tokens', 'rotate', String(notCi.json().id), '--group', 'acme', '--yes', '--print-token', '-o', 'json'], { env: { CI: 'true' } });
    expect(printed.code, printed.stderr).toBe(0);
    const fresh = printed.json<{ id: number; token: string }>();
    expect(await tokenStatus(fresh.token)).toBe(200);
    const file = join(tempDir(), 'token');
    const saved = await sandbox.run(['tokens', 'rotate', String(fresh.id), '--group', 'acme', '--yes', '--output-file', file], { env: { CI: 'true' } });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).not.toContain(readFileSync(file, 'utf8').trim());
  });

  it('rotating self from cron with a token_command and no save target stops before sending (the next run would be locked out); a helper target keeps the next run working', async () => {
    const created = await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'command-bot', scopes: ['api'], access_level: 40, expires_at: day(30) });
    const dir = tempDir();
    const file = join(dir, 'bot.token');
    writeFileSync(file, `${created.body.token}\n`, { mode: 0o600 });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'cmd', profiles: { cmd: { url: sandbox.rootUrl, token_command: `cat '${file}'` } } }), { mode: 0o600 });
    const cron = (argv: string[]) => sandbox.run(['tokens', 'rotate', 'self', '--group', 'acme', '--yes', ...argv], { env: { FORGECTL_CONFIG_DIR: dir, FORGECTL_TOKEN: undefined, FORGECTL_URL: undefined } });
    sandbox.clearRequests();
    const refused = await cron([]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('error: rotating self revokes the token in use (the output of the token_command of profile "cmd") and no save target takes the new one');
    expect(refused.stderr).toContain('hint: save it where the token comes from (--save-to exec:COMMAND runs a helper that stores it');
    expect(posts()).toEqual([]);
    expect(await tokenStatus(created.body.token)).toBe(200);
    // Saved where token_command reads it: the next run rotates again.
    for (let run = 0; run < 2; run++) {
      const saved = await cron(['--save-to', `exec:umask 077; cat > '${file}'`]);
      expect(saved.code, saved.stderr).toBe(0);
      expect(await tokenStatus(readFileSync(file, 'utf8').trim())).toBe(200);
    }
  });

  it('refuses --jq or --template that would not print the new token, before anything is sent; one that prints it works', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    const create = ['tokens', 'create', '--project', 'acme/api', '--scopes', 'read_api', '--expires-in', '30d'];
    const refusals: Array<[string[], string]> = [
      [[...create, '--name', 'lost', '--jq', '.name'], '--jq does not print .token'],
      [[...create, '--name', 'lost', '--jq', '.token | length'], '--jq does not print .token'],
      [['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes', '--jq', '{id, expires_at}'], '--jq does not print .token'],
      [['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'lost', '--scopes', 'read_repository', '--template', '{{ name }}'], '--template does not print {{ token }}'],
      [['runners', 'reset-token', '7', '--yes', '--jq', '.id'], '--jq does not print .token'],
    ];
    for (const [argv, problem] of refusals) {
      const refused = await sandbox.run(argv);
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain(`error: ${problem}, and the new token is shown only this once: it would be lost; nothing was sent`);
    }
    expect(posts()).toEqual([]);
    for (const shaping of [['--jq', '.token'], ['--jq', '.'], ['--jq', '"export TOKEN=\\(.token)"'], ['--template', 'TOKEN={{ token }}']]) {
      const shown = await sandbox.run([...create, '--name', `shown-${shaping.join('')}`, ...shaping]);
      expect(shown.code, `${shaping.join(' ')}: ${shown.stderr}`).toBe(0);
      expect(await tokenStatus(/glpat-[\w-]+/.exec(shown.stdout)![0])).toBe(200);
    }
  });

  it('refuses --fields that leaves out the new token when it is to be printed, before anything is sent', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    const refusals = [
      ['tokens', 'create', '--project', 'acme/api', '--name', 'lost', '--scopes', 'read_api', '--expires-in', '30d', '--fields', 'id,name'],
      ['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes', '--fields', 'id,expires_at'],
      ['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'lost', '--scopes', 'read_repository', '--fields', 'id'],
      ['runners', 'reset-token', '7', '--yes', '--fields', 'id'],
    ];
    for (const argv of refusals) {
      const refused = await sandbox.run(argv);
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain('error: --fields leaves out token, and the new token is shown only this once: it would be lost; nothing was sent');
    }
    expect(posts()).toEqual([]);
    // With token among the fields, or written to a file, --fields is what it always is.
    const shown = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes', '--fields', 'id,token', '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(await tokenStatus(shown.json<{ token: string }>().token)).toBe(200);
    const file = join(tempDir(), 'token');
    const saved = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'kept', '--scopes', 'read_api', '--expires-in', '30d', '--fields', 'id', '--output-file', file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(await tokenStatus(readFileSync(file, 'utf8').trim())).toBe(200);
  });

  it('without --expires-*, the new token keeps the lifetime of the old one, from today, and says so', async () => {
    const bot = await botProfile(); // made today, expiring in 20 days
    const later = new Date(Date.now() + 5 * 86_400_000);
    const rotated = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes', '-o', 'json'], { now: () => later });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toContain(`the new token expires on ${day(25)}: the lifetime of the old one (20 days)`);
    expect(rotated.json()).toMatchObject({ expires_at: day(25) });
    const given = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-in', '3d', '--yes', '-o', 'json']);
    expect(given.json()).toMatchObject({ expires_at: day(3) });
    expect(given.stderr).not.toContain('the lifetime of the old one');
  });

  it('needs --yes without a terminal, checks its input, and prints instead of sending under --dry-run', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    expect((await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile'])).code).toBe(2);
    expect((await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-at', day(400), '--yes'])).code).toBe(2);
    expect((await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-at', day(9), '--expires-in', '9d', '--yes'])).code).toBe(2);
    expect((await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--output-file', '/nonexistent/dir/token', '--yes'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    const dry = await bot.run(['-p', 'bot', '--dry-run', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-at', day(9)]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('POST');
    expect(dry.stdout).toContain('/groups/acme/access_tokens/self/rotate');
    expect(posts()).toEqual([]);
    expect(await tokenStatus(bot.token)).toBe(200);
    // The writes after the answer are named too, though they cannot be shown as requests.
    const targets = await bot.run(['-p', 'bot', '--dry-run', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to', 'ci-var:acme/DRY_RUN_TOKEN', '--save-to', 'exec:cat >/dev/null']);
    expect(targets.code).toBe(0);
    expect(targets.stderr).toContain('after the request below, the new token would be saved to profile "bot" and CI/CD variable DRY_RUN_TOKEN of group acme and helper cat >/dev/null, each write verified');
    expect(posts()).toEqual([]);
  });

  it('lost response after the server rotated: exit 8, exactly one rotate request, instructions, no retry', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', drop: 'after' });
    const result = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes']);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/outcome of rotating .* is unknown/);
    expect(result.stderr).toMatch(/NOT retried/);
    expect(result.stderr).toMatch(/do not run the rotation again/);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([expect.objectContaining({ status: 'dropped' })]);
    expect(profileToken(bot.dir)).toBe(bot.token);

    // The next cron run finds the token revoked and stops without presenting it to rotate (no reuse detection).
    sandbox.clearRequests();
    const again = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes']);
    expect(again.code).toBe(4);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    // One story: the 401's hint and tokens recover --list both say that an unknown outcome left no file to recover from.
    expect(result.stderr).toContain('No recovery file holds the new token (its answer never arrived), so forgectl tokens recover cannot bring it back');
    expect(again.stderr).toMatch(/^hint: .*no recovery file holds a newer token for it\. If an earlier rotation ended with exit 8 \(outcome unknown\), it may have happened and its new value is lost: check the token's state in the web UI or with another credential \(forgectl -p OTHER tokens list --group acme --state active\)/m);
    expect(again.stderr).not.toContain('recover --list');
    const listed = await bot.run(['tokens', 'recover', '--list']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('no interrupted rotations: no recovery file holds a new token (a rotation that ended with exit 8, outcome unknown, leaves none: its new token never arrived, and cannot be recovered)');
    const family = tokens(sandbox.db).filter((t) => t.user_id === tokens(sandbox.db).find((x) => x.id === bot.id)!.user_id);
    expect(family.filter((t) => t.active)).toHaveLength(1);
  });

  it('a 502 to the rotate request is an unknown outcome too: exit 8, sent once, not retried', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', status: 502 });
    const result = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes']);
    expect(result.code).toBe(8);
    expect(result.stderr).toMatch(/is unknown/);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toHaveLength(1);
  });

  it('a 403 rotating a token by id names the role it needs (Owner of the group, Maintainer of the project)', async () => {
    const { id } = (await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'other-bot', '--scopes', 'api', '--expires-at', day(20), '-o', 'json'])).json<{ id: number }>();
    for (const role of ['maintainer', 'developer'] as const) {
      sandbox.clearRequests();
      const result = await sandbox.run(['tokens', 'rotate', String(id), '--group', 'acme', '--expires-in', '10d', '--yes'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole(role) } });
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(/^error: 403 Forbidden/);
      expect(result.stderr).toContain('hint: tokens rotate needs the Owner role of the group or the Maintainer role of the project for a token by id (rotating self needs only the api or self_rotate scope)');
      expect(sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
    }
  });

  it('a 429 to the rotate request (a refusal the service did not act on) is waited out and sent again, under the lock', async () => {
    const bot = await botProfile();
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', status: 429, retry_after: 2 });
    const running = bot.run(['-p', 'bot', '-v', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes']);
    while (!sandbox.requests().some((r) => r.path.endsWith('/rotate'))) await new Promise((resolve) => setTimeout(resolve, 50));
    // While it waits, the lock is held: a second run stops without sending anything.
    const second = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes']);
    expect(second.code).toBe(6);
    const result = await running;
    expect(result.code).toBe(0);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate')).map((r) => r.status)).toEqual([429, 200]);
    expect(result.stderr).toMatch(/retrying in 2\.0s/);
    expect(profileToken(bot.dir)).not.toBe(bot.token);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
    // Beyond the retry budget the 429 stands: exit 7, nothing rotated.
    const next = profileToken(bot.dir);
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', status: 429, retry_after: 0, times: 2 });
    const refused = await bot.run(['-p', 'bot', '--retries', '1', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes']);
    expect(refused.code).toBe(7);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate')).map((r) => r.status)).toEqual([429, 429]);
    expect(profileToken(bot.dir)).toBe(next);
    expect(await tokenStatus(next)).toBe(200);
  });

  it('a config folder nothing may change (chattr +i): the profile that was to get the token, the reason in words, what to do', async (context) => {
    if (noImmutable) return context.skip(noImmutable);
    const bot = await botProfile();
    sandbox.clearRequests();
    execFileSync('chattr', ['+i', bot.dir]);
    let result;
    try {
      result = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes']);
    } finally {
      execFileSync('chattr', ['-i', bot.dir]);
    }
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: cannot save the new token to profile "bot": cannot write in ${bot.dir}: permission denied\n`);
    expect(result.stderr).toMatch(/^hint: nothing was sent\. Make .* writable for this user \(ls -ld and lsattr -d .*chattr -i clears that\), then run again$/m);
    expect(result.stderr).not.toMatch(/EPERM|--save-to-profile/);
    expect(posts()).toEqual([]);
  });

  it('a profile that cannot be replaced after the rotation (chattr +i on the config): the reason in words, with the file', async (context) => {
    if (noImmutable) return context.skip(noImmutable);
    const bot = await botProfile();
    const config = join(bot.dir, 'config.json');
    sandbox.fault({ method: 'POST', path: '/rotate$', answer_latency_ms: 400 });
    const running = bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes']);
    while (!sandbox.requests().some((r) => r.path.endsWith('/rotate'))) await new Promise((resolve) => setTimeout(resolve, 20));
    execFileSync('chattr', ['+i', config]);
    let result;
    try {
      result = await running;
    } finally {
      execFileSync('chattr', ['-i', config]);
    }
    expect(result.code).toBe(10);
    expect(result.stderr).toMatch(/not updated: profile "bot": permission denied \(.*config\.json[^)]*\)/);
    expect(result.stderr).not.toContain('EPERM');
    expect(result.stderr).toMatch(/^hint: the new token is in the recovery file .* Fix the cause, then run: forgectl tokens recover/m);
    const recovered = await bot.run(['tokens', 'recover']);
    expect(recovered.code).toBe(0);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
  });

  it('profile cannot be written: exit 10, the recovery file (0600) holds the token; recover finishes the save', async () => {
    const bot = await botProfile();
    const config = join(bot.dir, 'config.json');
    const saved = readFileSync(config, 'utf8');
    // The config turns into a folder while the rotate request is in flight (root ignores file modes).
    sandbox.clearRequests();
    sandbox.fault({ method: 'POST', path: '/rotate$', answer_latency_ms: 400 });
    const running = bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes']);
    await until(() => sandbox.requests().some((r) => r.path.endsWith('/rotate')));
    rmSync(config);
    mkdirSync(config);
    const result = await running;
    expect(result.code).toBe(10);
    const [name] = readdirSync(join(bot.dir, 'recovery'));
    const file = join(bot.dir, 'recovery', name);
    expect(result.stderr).toContain(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const recovered = JSON.parse(readFileSync(file, 'utf8')).token.token as string;
    expect(await tokenStatus(recovered)).toBe(200);
    expect(result.stdout + result.stderr).not.toContain(recovered);

    rmSync(config, { recursive: true });
    writeFileSync(config, saved, { mode: 0o600 });
    const list = await bot.run(['tokens', 'recover', '--list', '-o', 'json']);
    expect(list.code).toBe(9);
    expect(list.json()).toEqual([expect.objectContaining({ file, kind: 'group', resource: 'acme', save_to: 'profile "bot"' })]);
    const done = await bot.run(['-p', 'bot', 'tokens', 'recover']);
    expect(done.code).toBe(0);
    expect(profileToken(bot.dir)).toBe(recovered);
    expect(existsSync(file)).toBe(false);
    expect((await bot.run(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme'])).code).toBe(0);
  });

  it('a later rotate that finds a recovery file finishes the save instead of rotating again', async () => {
    const bot = await botProfile();
    const outputDir = tempDir();
    const target = join(outputDir, 'token');
    mkdirSync(target); // a folder where the file should go: the rename fails at save time
    const failed = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--output-file', target, '--yes']);
    expect(failed.code).toBe(10);
    rmSync(target, { recursive: true });

    sandbox.clearRequests();
    const next = await bot.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--output-file', target, '--yes']);
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(/finishing it from .* instead of rotating again/);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    expect(await tokenStatus(readFileSync(target, 'utf8').trim())).toBe(200);
    expect(readdirSync(join(bot.dir, 'recovery'))).toEqual([]);
  });

  it('a lock held by a live process: exit 6 and nothing sent; a dead owner\'s lock is taken over', async () => {
    const bot = await botProfile();
    const lock = tokenLockPath(sandbox.env().FORGECTL_CONFIG_DIR!, sandbox.rootUrl, bot.id);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, `${process.pid}\n`);
    sandbox.clearRequests();
    const blocked = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes']);
    expect(blocked.code).toBe(6);
    expect(blocked.stderr).toMatch(/another forgectl run is rotating token \d+ of group acme/);
    expect(sandbox.requests()).toEqual([]);

    writeFileSync(lock, '999999999\n');
    const takenOver = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes']);
    expect(takenOver.code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it('refuses to rotate a token that is already revoked (reuse detection would revoke the family)', async () => {
    const bot = await botProfile();
    const rotated = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes', '-o', 'json']);
    sandbox.clearRequests();
    const again = await sandbox.run(['tokens', 'rotate', String(bot.id), '--group', 'acme', '--yes']);
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/is revoked; not rotating it/);
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    expect(await tokenStatus(rotated.json().token)).toBe(200);
  });

  it('two rotations of the same token at once in one process: one succeeds, the other exits 6', async () => {
    const bot = await botProfile();
    sandbox.fault({ method: 'POST', path: '/rotate$', latency_ms: 200 });
    const argv = ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--save-to-profile', '--yes'];
    const results = await Promise.all([bot.run(argv), bot.run(argv)]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 6]);
    expect(await tokenStatus(profileToken(bot.dir))).toBe(200);
  });
});

describe('auth status with access tokens', () => {
  it('shows the expiry and warns within 14 days with the right rotate command for a group bot', async () => {
    const bot = await botProfile(); // expires in 20 days
    const quiet = await bot.run(['-p', 'bot', 'auth', 'status', '-o', 'json']);
    expect(quiet.code).toBe(0);
    expect(quiet.json()).toMatchObject({ bot: true, token_name: 'cron-bot', expires_at: day(20), days_left: 20 });
    expect(quiet.stderr).not.toMatch(/warning/);

    const soon = (await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'soon-bot', '--scopes', 'read_api', '--expires-at', day(10), '-o', 'json'])).json().token;
    const warned = await sandbox.run(['auth', 'status'], { env: { FORGECTL_TOKEN: soon } });
    expect(warned.stderr).toMatch(/expires in 10 days .*forgectl tokens rotate self --group 1 --save-to-profile/);
  });
});

describe('tokens audit', () => {
  it('lists tokens expiring within the window, soonest first, and exits 9; 0 when none', async () => {
    const audit = await sandbox.run(['tokens', 'create', '--group', 'acme', '--name', 'soon', '--scopes', 'read_api', '--expires-at', day(5), '-o', 'json']);
    const later = await sandbox.run(['tokens', 'create', '--project', 'acme/api', '--name', 'later', '--scopes', 'read_api', '--expires-at', day(8), '-o', 'json']);
    const found = await sandbox.run(['tokens', 'audit', '--group', 'acme', '--project', 'acme/api', '--expiring-within', '10d', '-o', 'json']);
    expect(found.code).toBe(9);
    const rows = found.json<Array<{ id: number; days_left: number; source: string }>>();
    const ids = rows.map((r) => r.id);
    expect(ids.indexOf(audit.json().id)).toBeLessThan(ids.indexOf(later.json().id));
    expect(rows.find((r) => r.id === audit.json().id)).toMatchObject({ days_left: 5, source: 'group acme' });
    expect(rows.map((r) => r.days_left)).toEqual([...rows.map((r) => r.days_left)].sort((a, b) => a - b));
    expect(found.stderr).toMatch(/expire.* within 10d/);

    const none = await sandbox.run(['tokens', 'audit', '--group', 'acme', '--expiring-within', '1d', '-o', 'json']);
    expect(none.code).toBe(0);
    expect(none.json()).toEqual([]);
    expect((await sandbox.run(['tokens', 'audit', '--expiring-within', 'soon'])).code).toBe(2);
  });

  it('names whose each personal token is when an administrator\'s list holds other users\' tokens', async () => {
    const bobs = await sandbox.run(['tokens', 'create', '--personal', '--user', 'bob', '--name', 'bob-laptop', '--scopes', 'read_api', '--expires-at', day(3), '-o', 'json']);
    const roots = await sandbox.run(['tokens', 'create', '--personal', '--user', 'root', '--name', 'root-script', '--scopes', 'read_api', '--expires-at', day(3), '-o', 'json']);
    const found = await sandbox.run(['tokens', 'audit', '--expiring-within', '4d', '-o', 'json']);
    expect(found.code, found.stderr).toBe(9);
    const rows = found.json<Array<{ id: number; source: string }>>();
    expect(rows.find((r) => r.id === bobs.json().id)).toMatchObject({ source: 'personal, of bob' });
    expect(rows.find((r) => r.id === roots.json().id)).toMatchObject({ source: 'personal' });
  });

  it('refuses options that do not go together before anything is sent', async () => {
    sandbox.clearRequests();
    for (const [argv, message] of [
      [['--instance', '--group', 'acme'], /--instance checks every group and project already/],
      [['--concurrency', '4'], /--concurrency goes with --instance/],
      [['--shard', '1/2'], /--shard and --rate-limit go with --instance/],
    ] as const) {
      const result = await sandbox.run(['tokens', 'audit', ...argv]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('includes the token in use, marked self', async () => {
    const bot = await botProfile();
    const result = await bot.run(['-p', 'bot', 'tokens', 'audit', '--expiring-within', '30d', '-o', 'json']);
    expect(result.code).toBe(9);
    expect(result.json()).toEqual([expect.objectContaining({ id: bot.id, self: true, source: 'self' })]);
    // A Maintainer's token may not list the group's tokens: exit 4 says which role it takes, and how to audit itself.
    const group = await bot.run(['-p', 'bot', 'tokens', 'audit', '--group', 'acme', '--expiring-within', '30d']);
    expect(group.code).toBe(4);
    expect(group.stderr).toContain('the access tokens of group acme are listed only for its Owners');
    expect(group.stderr).toContain('hint: leave out --group acme to audit the token in use alone, or run the audit with a token of an Owner');
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition never met');
}
