import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variables } from '../../src/resources/variables/sandbox.js';
import { tempDir, useTestSandbox, type RunOptions } from '../helpers/cli.js';

/** tokens rotate --save-to ci-var: and exec:, with the recovery discipline for each target. */

const sandbox = useTestSandbox();

const day = (plus: number): string => new Date(Date.now() + plus * 86_400_000).toISOString().slice(0, 10);

/** A group token of acme (Maintainer, api) and a config folder whose profile "bot" holds it. */
async function bot(name = 'cron-bot') {
  const created = await sandbox.call('POST', '/groups/acme/access_tokens', { name, scopes: ['api'], access_level: 40, expires_at: day(60) });
  expect(created.status).toBe(201);
  const dir = tempDir();
  const env = { FORGECTL_CONFIG_DIR: dir, FORGECTL_TOKEN: undefined, FORGECTL_URL: undefined };
  const run = (argv: string[], options: RunOptions = {}) => sandbox.run(argv, { ...options, env: { ...env, ...options.env } });
  expect((await run(['auth', 'login', '--profile', 'bot', '--url', sandbox.rootUrl, '--token-stdin'], { input: `${created.body.token}\n` })).code).toBe(0);
  const profileToken = (): string => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.bot.token;
  return { id: created.body.id as number, token: created.body.token as string, dir, run, profileToken };
}

/** The value a CI job is handed for a variable (what the runner gets, hidden or not). */
function jobSees(owner: 'group' | 'project', key: string, scope = '*'): string | undefined {
  return variables.table(sandbox.db).find((v) => v[`${owner}_id`] !== undefined && v.key === key && v.environment_scope === scope)?.value ?? undefined;
}

const authenticates = async (token: string): Promise<boolean> => (await sandbox.call('GET', '/groups/acme', undefined, token)).status === 200;
const rotateSelf = ['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--yes'];

describe('tokens rotate --save-to ci-var:', () => {
  it('a cron run with --save-to ci-var:acme/BOT_TOKEN --save-to-profile rotates, and a job reading the variable authenticates with it', async () => {
    const b = await bot();
    for (let round = 1; round <= 2; round++) {
      const result = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/BOT_TOKEN', '--save-to-profile']);
      expect(result.code, result.stderr).toBe(0);
      const fresh = b.profileToken();
      expect(result.stdout + result.stderr).not.toContain(fresh);
      expect(result.stderr).toMatch(/saved to profile "bot", CI\/CD variable BOT_TOKEN of group acme \(hidden: verified by the service's answer\)/);
      const variable = await sandbox.call('GET', '/groups/acme/variables/BOT_TOKEN');
      expect(variable.body).toMatchObject({ key: 'BOT_TOKEN', value: null, hidden: true, masked: true, protected: true, raw: true, environment_scope: '*' });
      // The job: reads the variable it is handed and authenticates with it.
      const inJob = jobSees('group', 'BOT_TOKEN')!;
      expect(inJob).toBe(fresh);
      expect(await authenticates(inJob)).toBe(true);
    }
    expect(await authenticates(b.token)).toBe(false);
  });

  it('a path with a slash is a project or a group, as the service says; scope and protected=false are kept; a visible variable is read back', async () => {
    const b = await bot('cron-bot-2');
    // acme/api holds DEPLOY_TOKEN in the production scope already, masked but not hidden.
    const result = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/api/DEPLOY_TOKEN?scope=production&protected=false', '--save-to-profile']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('CI/CD variable DEPLOY_TOKEN of project acme/api (scope production) exists and is not hidden');
    expect(result.stderr).toContain('DEPLOY_TOKEN of project acme/api (scope production) (read back)');
    const variable = await sandbox.call('GET', '/projects/acme%2Fapi/variables/DEPLOY_TOKEN?filter[environment_scope]=production');
    expect(variable.body).toMatchObject({ hidden: false, masked: true, protected: false, environment_scope: 'production', value: b.profileToken() });
    // The staging variable of the same key is untouched.
    expect(jobSees('project', 'DEPLOY_TOKEN', 'staging')).toBe('dpl-stg-41b8e0d6c2');
  });

  it('a variable that exists keeps its settings unless the target names others, and what changes is said before rotating', async () => {
    const b = await bot('settings-bot');
    // PLAIN_TOK: a plain variable (not masked, not protected, expanded): the token goes in, the settings stay.
    expect((await sandbox.call('POST', '/groups/acme/variables', { key: 'PLAIN_TOK', value: 'placeholder', variable_type: 'file' })).status).toBe(201);
    const plain = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/PLAIN_TOK']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('CI/CD variable PLAIN_TOK of group acme is not masked: the token would show in job logs (add masked=true to the target to mask it)');
    expect((await sandbox.call('GET', '/groups/acme/variables/PLAIN_TOK')).body).toMatchObject({ masked: false, protected: false, raw: false, variable_type: 'file', value: b.profileToken() });

    // protected=false changes protected only (raw stays false), and says so as variables set does.
    const made = await sandbox.call('POST', '/projects/acme%2Fweb/variables', { key: 'WEB_TOKEN', value: 'placeholder-1234', masked: true, protected: true, environment_scope: 'production' });
    expect(made.body).toMatchObject({ protected: true, raw: false, masked: true });
    const unprotected = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/web/WEB_TOKEN?scope=production&protected=false']);
    expect(unprotected.code, unprotected.stderr).toBe(0);
    expect(unprotected.stderr).toContain('CI/CD variable WEB_TOKEN of project acme/web (scope production): protected true → false');
    expect((await sandbox.call('GET', '/projects/acme%2Fweb/variables/WEB_TOKEN?filter[environment_scope]=production')).body).toMatchObject({ protected: false, raw: false, masked: true, value: b.profileToken() });

    // A hidden variable stays hidden: hidden=false is refused before anything is sent.
    expect((await sandbox.call('POST', '/groups/acme/variables', { key: 'HIDDEN_TOK', value: 'hidden-value-1234', masked_and_hidden: true, masked: true })).status).toBe(201);
    sandbox.clearRequests();
    const unhide = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/HIDDEN_TOK?hidden=false']);
    expect(unhide.code).toBe(2);
    expect(unhide.stderr).toContain('CI/CD variable HIDDEN_TOK of group acme is hidden, and a variable stays hidden');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a group the token cannot see: exit 5, "not visible to this token", nothing sent', async () => {
    const b = await bot('blind-bot');
    // The bot is a token of acme: the group platform-secret exists, but it cannot see it.
    expect((await sandbox.call('POST', '/groups', { name: 'Hidden Ops', path: 'hidden-ops', visibility: 'private' })).status).toBe(201);
    sandbox.clearRequests();
    const result = await b.run([...rotateSelf, '--save-to', 'ci-var:hidden-ops/X']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('error: --save-to ci-var:hidden-ops/X: no project or group hidden-ops is visible to this token (it does not exist, or the token may not see it)');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses before rotating: bad syntax (exit 2), a missing group (exit 5), no right to write variables (exit 4)', async () => {
    const b = await bot('cron-bot-3');
    for (const [target, code] of [['ci-var:BOT_TOKEN', 2], ['ci-var:acme/bad-key', 2], ['ci-var:acme/K?scope', 2], ['vault:secret/x', 2], ['ci-var:nosuch/group/KEY', 5]] as const) {
      sandbox.clearRequests();
      const result = await b.run([...rotateSelf, '--save-to', target, '--save-to-profile']);
      expect(result.code, `${target}: ${result.stderr}`).toBe(code);
      expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    }
    const admin = { FORGECTL_TOKEN: sandbox.tokenWithRole('developer'), FORGECTL_URL: sandbox.rootUrl };
    sandbox.clearRequests();
    const denied = await sandbox.run(['tokens', 'rotate', String(b.id), '--group', 'acme', '--save-to', 'ci-var:acme/BOT_TOKEN', '--yes'], { env: admin });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('nothing was sent');
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    expect(await authenticates(b.token)).toBe(true);
  });
});

describe('tokens rotate --save-to exec:', () => {
  it('hands the token to a helper on stdin, with its name, id and expiry in the environment; its output never shows the token', async () => {
    const b = await bot('helper-bot');
    const out = tempDir();
    const helper = `printf '%s %s %s %s' "$FORGECTL_ROTATED_ACTION" "$FORGECTL_ROTATED_NAME" "$FORGECTL_ROTATED_ID" "$FORGECTL_ROTATED_EXPIRES_AT" > ${out}/facts; cat > ${out}/token; echo "stored $(cat ${out}/token)"`;
    const result = await b.run([...rotateSelf, '--save-to', `exec:${helper}`, '--save-to-profile', '--expires-in', '20d']);
    expect(result.code, result.stderr).toBe(0);
    const fresh = b.profileToken();
    expect(readFileSync(join(out, 'token'), 'utf8')).toBe(`${fresh}\n`);
    expect(readFileSync(join(out, 'facts'), 'utf8')).toMatch(new RegExp(`^store helper-bot \\d+ ${day(20)}$`));
    expect(result.stderr).toContain('helper: stored [REDACTED]');
    expect(result.stdout + result.stderr).not.toContain(fresh);
  });

  it('a failed target: exit 10 naming what was and was not updated, the recovery file kept; tokens recover finishes only what is left', async () => {
    const b = await bot('flaky-bot');
    const out = tempDir();
    const helper = `test -f ${out}/ready && cat > ${out}/token`;
    const result = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/FLAKY_TOKEN', '--save-to', `exec:${helper}`, '--save-to-profile']);
    expect(result.code).toBe(10);
    const fresh = b.profileToken();
    expect(result.stderr).toMatch(/not updated: helper test -f .* it exited 1; updated: profile "bot", CI\/CD variable FLAKY_TOKEN of group acme/);
    expect(result.stdout + result.stderr).not.toContain(fresh);
    expect(jobSees('group', 'FLAKY_TOKEN')).toBe(fresh);
    const recovery = readdirSync(join(b.dir, 'recovery')).filter((n) => n.endsWith('.json'));
    expect(recovery).toHaveLength(1);

    // The next cron run is pointed at the unfinished target and does not rotate again.
    writeFileSync(join(out, 'ready'), '');
    sandbox.clearRequests();
    const recovered = await b.run(['-p', 'bot', 'tokens', 'recover']);
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(readFileSync(join(out, 'token'), 'utf8')).toBe(`${fresh}\n`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect(readdirSync(join(b.dir, 'recovery'))).toEqual([]);
    expect(existsSync(join(b.dir, 'recovery', `${recovery[0]}.progress`))).toBe(false);
    expect(await authenticates(fresh)).toBe(true);
  });

  it('tokens recover --save-to-profile NAME of another instance does not write the token there; the recovery file stays', async () => {
    const b = await bot('elsewhere-bot');
    const result = await b.run([...rotateSelf, '--save-to', 'exec:exit 1']);
    expect(result.code).toBe(10);
    const fresh = b.profileToken();
    const config = JSON.parse(readFileSync(join(b.dir, 'config.json'), 'utf8'));
    config.profiles.elsewhere = { url: 'https://git.elsewhere.example.com', token: 'glpat-of-elsewhere-0000' };
    writeFileSync(join(b.dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
    const recovered = await b.run(['-p', 'bot', 'tokens', 'recover', '--save-to-profile', 'elsewhere']);
    expect(recovered.code).toBe(10);
    expect(recovered.stderr).toContain(`profile "elsewhere": it is for https://git.elsewhere.example.com, and the token is of ${sandbox.rootUrl}`);
    expect(JSON.parse(readFileSync(join(b.dir, 'config.json'), 'utf8')).profiles.elsewhere.token).toBe('glpat-of-elsewhere-0000');
    expect(recovered.stdout + recovered.stderr).not.toContain(fresh);
    expect(readdirSync(join(b.dir, 'recovery')).filter((n) => n.endsWith('.json'))).toHaveLength(1);
  });

  it('a target that will never work is dropped from the recovery file (asking first); the row after recovering is readable', async () => {
    const b = await bot('drop-bot');
    const broken = 'exec:/nonexistent/helper --store';
    const first = await b.run([...rotateSelf, '--save-to', 'ci-var:acme/DROP_TOKEN', '--save-to', broken]);
    expect(first.code).toBe(10);
    const fresh = b.profileToken();
    expect((await b.run(['tokens', 'recover', '--list'])).code).toBe(9);

    // Recovering keeps failing on the helper: the error says how to take it out, since no rotation runs until then.
    const again = await b.run(['-p', 'bot', 'tokens', 'recover']);
    expect(again.code).toBe(10);
    expect(again.stderr).toMatch(/Until then no rotation of this token runs: a target that will never work again \(a helper that is gone, a deleted project\) is taken out, after asking, with forgectl tokens recover \S+ --drop TARGET/);
    const typo = await b.run(['tokens', 'recover', '--drop', 'exec:/nonexistent/other']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`hint: targets: profile:bot, ci-var:acme/DROP_TOKEN, ${broken}`);
    const asked = await b.run(['tokens', 'recover', '--drop', broken]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/confirmation needed: Drop helper \/nonexistent\/helper --store of token \d+ \(.*\)\? The recovered token is never written there/);
    expect((await b.run(['tokens', 'recover', '--list'])).code).toBe(9);

    const dropped = await b.run(['-p', 'bot', 'tokens', 'recover', '--drop', broken, '--yes']);
    expect(dropped.code, dropped.stderr).toBe(0);
    const row = dropped.stdout.replace(/\n$/, '').split('\t');
    expect(row).toEqual([expect.stringMatching(/^\d{4}-/), 'group', 'acme', expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/), 'drop-bot', day(60), expect.any(String), 'saved already', expect.stringContaining('/recovery/'), '']);
    expect(dropped.stdout).not.toContain(fresh);
    expect((await b.run(['tokens', 'recover', '--list'])).code).toBe(0);
    expect(jobSees('group', 'DROP_TOKEN')).toBe(fresh);
  });

  it('the next cron run finishes a target left by the run before (the profile already holds the new token), without rotating again', async () => {
    const b = await bot('next-run-bot');
    const out = tempDir();
    const argv = [...rotateSelf, '--save-to', `exec:test -f ${out}/ready && cat > ${out}/token`, '--save-to-profile'];
    expect((await b.run(argv)).code).toBe(10);
    const fresh = b.profileToken();
    writeFileSync(join(out, 'ready'), '');
    sandbox.clearRequests();
    const next = await b.run(argv);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('finishing it from');
    expect(sandbox.requests().filter((r) => r.path.endsWith('/rotate'))).toEqual([]);
    expect(readFileSync(join(out, 'token'), 'utf8')).toBe(`${fresh}\n`);
    expect(b.profileToken()).toBe(fresh);
    expect(readdirSync(join(b.dir, 'recovery'))).toEqual([]);
  });
});

describe('rotating self saves to the profile in use; a hidden variable is never the only copy', () => {
  const rotatePosts = () => sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/rotate'));

  it('without --save-to-profile the profile in use gets the new token, beside a new hidden variable', async () => {
    // The reproduction of the report: the profile kept the revoked token, the only copy went to a hidden variable.
    const b = await bot('lockbot');
    const rotated = await b.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--expires-in', '30d', '--save-to', 'ci-var:acme/LOCK_TOKEN', '--yes']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = b.profileToken();
    expect(fresh).not.toBe(b.token);
    expect(rotated.stderr).toContain('saved to profile "bot", CI/CD variable LOCK_TOKEN of group acme');
    expect(rotated.stdout + rotated.stderr).not.toContain(fresh);
    const get = await b.run(['-p', 'bot', 'tokens', 'get', 'self', '--group', 'acme', '-o', 'json']);
    expect(get.code, get.stderr).toBe(0);
    expect((await b.run(['-p', 'bot', 'api', '/groups/acme/variables/LOCK_TOKEN', '--jq', '.hidden'])).stdout).toBe('true\n');
    expect(jobSees('group', 'LOCK_TOKEN')).toBe(fresh);
  });

  it('--no-save-to-profile with only a hidden variable: exit 2, nothing sent; with a readable copy beside it, it rotates', async () => {
    const b = await bot('nosave-bot');
    sandbox.clearRequests();
    const refused = await b.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--no-save-to-profile', '--save-to', 'ci-var:acme/ONLY_COPY', '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: --no-save-to-profile leaves the profile out, and CI\/CD variable ONLY_COPY of group acme is hidden: nobody can read it back, and it would hold the only copy of the new token; nothing was sent$/m);
    expect(refused.stderr).toMatch(/^hint: save a copy that can be read as well: --save-to-profile NAME, --output-file PATH/m);
    expect(rotatePosts()).toEqual([]);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await authenticates(b.token)).toBe(true);

    const file = join(tempDir(), 'bot.token');
    const withFile = await b.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--no-save-to-profile', '--save-to', 'ci-var:acme/ONLY_COPY', '--output-file', file, '--yes']);
    expect(withFile.code, withFile.stderr).toBe(0);
    const fresh = readFileSync(file, 'utf8').trim();
    expect(jobSees('group', 'ONLY_COPY')).toBe(fresh);
    expect(b.profileToken()).toBe(b.token); // left out, as asked
  });

  it('a token from FORGECTL_TOKEN: a new hidden variable alone is refused, saying what to do; a visible one is a readable copy', async () => {
    const created = await sandbox.call('POST', '/groups/acme/access_tokens', { name: 'env-bot', scopes: ['api'], access_level: 40, expires_at: day(60) });
    const env = { FORGECTL_CONFIG_DIR: tempDir(), FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: created.body.token as string };
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'rotate', 'self', '--group', 'acme', '--save-to', 'ci-var:acme/ENV_BOT_TOKEN', '--yes'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: the token in use comes from FORGECTL_TOKEN, so there is no profile to save the new one to, and CI/CD variable ENV_BOT_TOKEN of group acme is hidden');
    expect(refused.stderr).toMatch(/hint: .*ci-var:PATH\/KEY\?hidden=false\); then point FORGECTL_TOKEN at it/);
    expect(rotatePosts()).toEqual([]);

    const visible = await sandbox.run(['tokens', 'rotate', 'self', '--group', 'acme', '--save-to', 'ci-var:acme/ENV_BOT_TOKEN?hidden=false', '--yes'], { env });
    expect(visible.code, visible.stderr).toBe(0);
    const variable = await sandbox.call('GET', '/groups/acme/variables/ENV_BOT_TOKEN');
    expect(variable.body).toMatchObject({ hidden: false, masked: true, protected: true, raw: true });
    expect(await authenticates(variable.body.value as string)).toBe(true);
    expect(visible.stdout).not.toContain(variable.body.value as string);

    // No target at all, off a terminal (cron): refused before sending, since the next run would present the revoked token.
    sandbox.clearRequests();
    const unsaved = await sandbox.run(['tokens', 'rotate', 'self', '--group', 'acme', '--yes'], { env: { ...env, FORGECTL_TOKEN: variable.body.value as string } });
    expect(unsaved.code).toBe(2);
    expect(unsaved.stderr).toContain('error: rotating self revokes the token in use (FORGECTL_TOKEN) and no save target takes the new one: off a terminal it would only be printed on stdout, and the next run would present the revoked token; nothing was sent');
    expect(rotatePosts()).toEqual([]);
    // With --print-token (stdout captured): handed over on stdout, with what to do about FORGECTL_TOKEN.
    const printed = await sandbox.run(['tokens', 'rotate', 'self', '--group', 'acme', '--yes', '--print-token', '-o', 'json'], { env: { ...env, FORGECTL_TOKEN: variable.body.value as string } });
    expect(printed.code, printed.stderr).toBe(0);
    expect(await authenticates(printed.json<{ token: string }>().token)).toBe(true);
    expect(printed.stderr).toContain('the token in use came from FORGECTL_TOKEN and is revoked now: put the new one (on stdout) where FORGECTL_TOKEN comes from');
  });

  it('a rotation by id into a new hidden variable alone is refused; a helper beside it is a readable copy', async () => {
    const b = await bot('by-id-bot');
    const root = { FORGECTL_URL: sandbox.rootUrl, FORGECTL_TOKEN: sandbox.adminToken, FORGECTL_CONFIG_DIR: tempDir() };
    sandbox.clearRequests();
    const refused = await sandbox.run(['tokens', 'rotate', String(b.id), '--group', 'acme', '--save-to', 'ci-var:acme/BY_ID_TOKEN', '--yes'], { env: root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: CI\/CD variable BY_ID_TOKEN of group acme is hidden: nobody can read it back/m);
    expect(rotatePosts()).toEqual([]);
    const out = tempDir();
    const helped = await sandbox.run(['tokens', 'rotate', String(b.id), '--group', 'acme', '--save-to', 'ci-var:acme/BY_ID_TOKEN', '--save-to', `exec:cat > ${out}/token`, '--yes'], { env: root });
    expect(helped.code, helped.stderr).toBe(0);
    expect(jobSees('group', 'BY_ID_TOKEN')).toBe(readFileSync(join(out, 'token'), 'utf8').trim());
  });

  it('--no-save-to-profile without other targets: off a terminal only with --print-token (the profile keeps the revoked token); then printed', async () => {
    const b = await bot('print-bot');
    const refused = await b.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--no-save-to-profile', '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: rotating self revokes the token in use (the token of profile "bot") and no save target takes the new one');
    expect(await authenticates(b.token)).toBe(true);
    const printed = await b.run(['-p', 'bot', 'tokens', 'rotate', 'self', '--group', 'acme', '--no-save-to-profile', '--yes', '--print-token', '-o', 'json']);
    expect(printed.code, printed.stderr).toBe(0);
    const fresh = (JSON.parse(printed.stdout) as { token: string }).token;
    expect(await authenticates(fresh)).toBe(true);
    expect(b.profileToken()).toBe(b.token);
  });
});
