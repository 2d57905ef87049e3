import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCatalogue } from '../../commands/mcp/catalogue.js';
import { ToolServer } from '../../commands/mcp/server.js';
import { commands, manifest } from '../../commands/manifest.js';
import { execute } from '../../main.js';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

/** The stored value of a variable (what the service keeps, whatever it shows). */
const stored = (key: string, scope = '*') => sandbox.db.table<{ key: string; environment_scope: string; value: string; owner: string }>('ci_variables').find((v) => v.key === key && v.environment_scope === scope);

/** Every secret the demo seed holds in masked or hidden variables: none may ever be printed. */
const SEEDED_SECRETS = ['dpl-stg-41b8e0d6c2', 'dpl-prod-7f3a9c2e55', 'sk_live_9Qx2LmP4vR7tWz', 'cdn-9d1e7b3a4f', 'rg-Zt8qW2nV5xK1', 'sqa_5e1f0c9b7a2d'];
const leaks = (text: string) => SEEDED_SECRETS.filter((secret) => text.includes(secret));

describe('variables list and get', () => {
  it('lists a project\'s variables with masked and hidden values as null, in a pipe even with --show-values', async () => {
    const result = await sandbox.run(['variables', 'list', '--project', 'acme/api', '-o', 'json', '--show-values']);
    expect(result.code).toBe(0);
    const byKey = (key: string, scope = '*') => result.json().find((v: { key: string; environment_scope: string }) => v.key === key && v.environment_scope === scope);
    expect(byKey('LOG_LEVEL').value).toBe('info');
    expect(byKey('DEPLOY_TOKEN', 'production')).toMatchObject({ masked: true, value: null });
    expect(byKey('SIGNING_KEY')).toMatchObject({ hidden: true, value: null });
    expect(result.stderr).toContain('--show-values shows masked values only at a terminal');
    expect(leaks(result.stdout + result.stderr)).toEqual([]);
  });

  it('at an 80-column terminal keeps every header whole, leaving out the columns that say least', async () => {
    const result = await sandbox.run(['variables', 'list', '--project', 'acme/api'], { tty: true, columns: 80 });
    expect(result.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- the header's bold
    const lines = result.stdout.replace(/\u001b\[\d+m/g, '').trimEnd().split('\n');
    expect(lines[0].split(/\s{2,}/)).toEqual(['key', 'environment_scope', 'variable_type', 'protected', 'masked', 'value']);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(result.stderr).toContain('columns left out to fit the terminal: hidden, raw (--fields picks them)');
  });

  it('shows masked values with --show-values at a terminal', async () => {
    const result = await sandbox.run(['variables', 'list', '--project', 'acme/api', '--scope', 'staging', '--show-values', '-o', 'json'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.json().map((v: { key: string }) => v.key)).toEqual(['API_URL', 'DEPLOY_TOKEN']);
    expect(result.stdout).toContain('dpl-stg-41b8e0d6c2');
  });

  it('lists group and instance variables; --instance with --scope or two places is a usage error', async () => {
    const group = await sandbox.run(['variables', 'list', '--group', 'acme']);
    expect(group.stdout).toMatch(/^REGISTRY_USER\t\*\tenv_var\tfalse\tfalse\tfalse\tfalse\tacme-ci$/m);
    expect(leaks(group.stdout)).toEqual([]);
    const instance = await sandbox.run(['variables', 'list', '--instance', '-o', 'json']);
    expect(instance.json().map((v: { key: string }) => v.key)).toEqual(['HTTP_PROXY', 'NO_PROXY', 'SONAR_TOKEN']);
    sandbox.clearRequests();
    expect((await sandbox.run(['variables', 'list', '--instance', '--scope', 'production'])).code).toBe(2);
    expect((await sandbox.run(['variables', 'list', '--instance', '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['variables', 'list'])).stderr).toContain('give --project, --group or --instance');
    expect(sandbox.requests()).toEqual([]);
  });

  it('gets one scope of a key; without --scope a key in two scopes names them (exit 2)', async () => {
    const got = await sandbox.run(['variables', 'get', 'API_URL', '--project', 'acme/api', '--scope', 'production', '-o', 'json']);
    expect(got.json()).toMatchObject({ key: 'API_URL', environment_scope: 'production', value: 'https://api.acme.example.com' });
    const both = await sandbox.run(['variables', 'get', 'API_URL', '--project', 'acme/api']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('error: API_URL of project acme/api is in several environment scopes (staging, production)\nhint: give --scope with one of them: --scope staging, --scope production\n');
    // Every scope is named, quoted where a shell needs it.
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/variables', { key: 'API_URL', value: 'https://review.example.com', environment_scope: 'review/*' })).status).toBe(201);
    const three = await sandbox.run(['variables', 'delete', 'API_URL', '--project', 'acme/api', '--yes']);
    expect(three.stderr).toContain("hint: give --scope with one of them: --scope staging, --scope production, --scope 'review/*'\n");
    expect((await sandbox.call('DELETE', '/projects/acme%2Fapi/variables/API_URL?filter[environment_scope]=review/*')).status).toBe(204);
    expect((await sandbox.run(['variables', 'get', 'NOPE', '--project', 'acme/api'])).code).toBe(5);
    expect((await sandbox.run(['variables', 'get', 'BAD-KEY', '--project', 'acme/api'])).code).toBe(2);
  });
});

describe('variables set', () => {
  it('creates a plain variable, then changes only what differs and sends nothing when all matches', async () => {
    const made = await sandbox.run(['variables', 'set', 'FEATURE_FLAGS', '--project', 'acme/web', '--value', 'a,b', '-o', 'json']);
    expect(made.code).toBe(0);
    expect(made.json()).toMatchObject({ key: 'FEATURE_FLAGS', value: 'a,b', environment_scope: '*' });
    expect(made.stderr).toContain('Created variable FEATURE_FLAGS (scope *) of project acme/web');
    const changed = await sandbox.run(['variables', 'set', 'FEATURE_FLAGS', '--project', 'acme/web', '--value', 'a,b,c', '--protected']);
    expect(changed.stderr).toContain('Changed variable FEATURE_FLAGS (scope *) of project acme/web: protected false → true, value changed (3 characters → 5 characters)');
    sandbox.clearRequests();
    const again = await sandbox.run(['variables', 'set', 'FEATURE_FLAGS', '--project', 'acme/web', '--value', 'a,b,c', '--protected']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already as asked: nothing sent');
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
  });

  it('refuses a masked or hidden value on the command line, before sending anything (exit 2)', async () => {
    sandbox.clearRequests();
    const masked = await sandbox.run(['variables', 'set', 'TOKEN_A', '--project', 'acme/web', '--masked', '--value', 'supersecret1']);
    expect(masked.code).toBe(2);
    expect(masked.stderr).toContain('--value is refused for a masked variable');
    expect((await sandbox.run(['variables', 'set', 'TOKEN_A', '--project', 'acme/web', '--hidden', '--value', 'supersecret1'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
    // An existing masked variable: its new value is refused from argv too (only a read was sent).
    const existing = await sandbox.run(['variables', 'set', 'CDN_PURGE_KEY', '--project', 'acme/web', '--value', 'cdn-new-value-1']);
    expect(existing.code).toBe(2);
    expect(sandbox.requests().every((r) => r.method === 'GET')).toBe(true);
    expect(stored('CDN_PURGE_KEY')!.value).toBe('cdn-9d1e7b3a4f');
  });

  it('takes a masked value from stdin, a file or the environment, checks it first, and never prints it', async () => {
    const fromStdin = await sandbox.run(['variables', 'set', 'TOKEN_B', '--project', 'acme/web', '--masked', '--value-stdin', '-o', 'json'], { input: 'tok-from-stdin-1\n' });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.json()).toMatchObject({ masked: true, value: null });
    expect(stored('TOKEN_B')!.value).toBe('tok-from-stdin-1');
    const file = join(tempDir(), 'token');
    writeFileSync(file, 'tok-from-file-22');
    const fromFile = await sandbox.run(['variables', 'set', 'TOKEN_B', '--project', 'acme/web', '--value-file', file, '-v']);
    expect(fromFile.stderr).toContain('Changed variable TOKEN_B (scope *) of project acme/web: value changed');
    expect(fromFile.stdout + fromFile.stderr).not.toContain('tok-from');
    const fromEnv = await sandbox.run(['variables', 'set', 'TOKEN_B', '--project', 'acme/web', '--value-env', 'MY_TOKEN', '--dry-run'], { env: { MY_TOKEN: 'tok-from-env-333' } });
    expect(fromEnv.stdout).toContain('"value": "[REDACTED]"');
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain('tok-from-env');
    sandbox.clearRequests();
    const short = await sandbox.run(['variables', 'set', 'TOKEN_C', '--project', 'acme/web', '--masked', '--value-env', 'SHORT'], { env: { SHORT: 'abc' } });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('must be at least 8 characters to be masked');
    const bad = await sandbox.run(['variables', 'set', 'TOKEN_C', '--project', 'acme/web', '--masked', '--value-env', 'BAD'], { env: { BAD: 'has|pipes|in' } });
    expect(bad.stderr).toContain('cannot be masked: it contains |');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('keeps the final newline of a file variable piped to --value-stdin, as --value-file does (a key needs it)', async () => {
    const pem = '-----BEGIN KEY-----\nAAAA\n-----END KEY-----\n';
    const made = await sandbox.run(['variables', 'set', 'PEM_KEY', '--project', 'acme/web', '--type', 'file', '--value-stdin'], { input: pem });
    expect(made.code).toBe(0);
    expect(stored('PEM_KEY')!.value).toBe(pem);
    // An existing file variable keeps it too without --type; an env_var still loses the newline echo adds.
    expect((await sandbox.run(['variables', 'set', 'PEM_KEY', '--project', 'acme/web', '--value-stdin'], { input: `${pem}x\n` })).code).toBe(0);
    expect(stored('PEM_KEY')!.value).toBe(`${pem}x\n`);
    await sandbox.run(['variables', 'set', 'PLAIN_ENV', '--project', 'acme/web', '--value-stdin'], { input: 'one\n' });
    expect(stored('PLAIN_ENV')!.value).toBe('one');
    const empty = await sandbox.run(['variables', 'set', 'EMPTY_FILE', '--project', 'acme/web', '--type', 'file', '--value-stdin'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no value of EMPTY_FILE: stdin is empty');
  });

  it('creates a hidden variable once; its value is written on every set, and it cannot become visible', async () => {
    const made = await sandbox.run(['variables', 'set', 'VAULT_TOKEN', '--group', 'acme', '--hidden', '--value-env', 'V', '-o', 'json'], { env: { V: 'hvs.first-value' } });
    expect(made.json()).toMatchObject({ hidden: true, masked: true, value: null });
    const again = await sandbox.run(['variables', 'set', 'VAULT_TOKEN', '--group', 'acme', '--value-env', 'V'], { env: { V: 'hvs.second-value' } });
    expect(again.stderr).toContain('value written (hidden: it cannot be read back to compare)');
    expect(stored('VAULT_TOKEN')!.value).toBe('hvs.second-value');
    expect((await sandbox.run(['variables', 'set', 'VAULT_TOKEN', '--group', 'acme', '--no-masked'])).code).toBe(2);
    expect((await sandbox.run(['variables', 'set', 'REGISTRY_USER', '--group', 'acme', '--hidden', '--value-env', 'V'], { env: { V: 'acme-ci-2-user' } })).stderr).toContain('made hidden only when it is created');
  });

  it('sets a key in a second scope as a second variable, and an instance variable without scope', async () => {
    expect((await sandbox.run(['variables', 'set', 'API_URL', '--project', 'acme/api', '--scope', 'review/*', '--value', 'https://review.acme.example.com'])).code).toBe(0);
    expect(stored('API_URL', 'review/*')!.value).toBe('https://review.acme.example.com');
    expect(stored('API_URL', 'production')!.value).toBe('https://api.acme.example.com');
    const instance = await sandbox.run(['variables', 'set', 'PIP_INDEX_URL', '--instance', '--value', 'https://pypi.acme.example.com/simple', '-o', 'json']);
    expect(instance.json()).not.toHaveProperty('environment_scope');
    expect((await sandbox.run(['variables', 'set', 'X', '--instance', '--hidden', '--value-env', 'V'], { env: { V: 'abcdefgh' } })).code).toBe(2);
  });

  it('needs a value to create, and the Maintainer role (exit 4)', async () => {
    expect((await sandbox.run(['variables', 'set', 'NEW_KEY', '--project', 'acme/web', '--protected'])).stderr).toContain('does not exist yet: give its value');
    const developer = await sandbox.run(['variables', 'set', 'NEW_KEY', '--project', 'acme/web', '--value', 'x'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('developer') } });
    expect(developer.code).toBe(4);
  });
});

describe('variables delete', () => {
  it('shows the variable and asks first (exit 2 without --yes off a terminal), then deletes one scope', async () => {
    sandbox.clearRequests();
    const refused = await sandbox.run(['variables', 'delete', 'DEPLOY_TOKEN', '--project', 'acme/api', '--scope', 'staging']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Delete variable DEPLOY_TOKEN (scope staging) [masked, 18 characters] of project acme/api?');
    expect(leaks(refused.stderr)).toEqual([]);
    expect(sandbox.requests().map((r) => r.method)).toEqual(['GET']);
    const done = await sandbox.run(['variables', 'delete', 'DEPLOY_TOKEN', '--project', 'acme/api', '--scope', 'staging', '--yes']);
    expect(done.code).toBe(0);
    expect(stored('DEPLOY_TOKEN', 'staging')).toBeUndefined();
    expect(stored('DEPLOY_TOKEN', 'production')).toBeDefined();
  });

  it('names a protected file variable by key, scope, traits and size, never by its value, in the question and the notices of delete and set', async () => {
    const secret = 'certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQURBTkJna3Foa2lH';
    const dir = tempDir();
    writeFileSync(join(dir, 'kc.yml'), `apiVersion: v1\n${secret}\n`);
    expect((await sandbox.run(['variables', 'set', 'KC_LEAK', '--project', 'acme/web', '--type', 'file', '--value-file', join(dir, 'kc.yml'), '--protected'])).code).toBe(0);
    writeFileSync(join(dir, 'kc.yml'), `apiVersion: v2\n${secret}\n`);
    const changed = await sandbox.run(['variables', 'set', 'KC_LEAK', '--project', 'acme/web', '--value-file', join(dir, 'kc.yml')]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toContain('Changed variable KC_LEAK (scope *) of project acme/web: value changed (124 characters → 124 characters)');
    const asked = await sandbox.run(['variables', 'delete', 'KC_LEAK', '--project', 'acme/web']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toBe('error: confirmation needed: Delete variable KC_LEAK (scope *) [file, protected, 124 characters] of project acme/web?\nhint: pass --yes to confirm without a terminal\n');
    const done = await sandbox.run(['variables', 'delete', 'KC_LEAK', '--project', 'acme/web', '--yes']);
    expect(done.code).toBe(0);
    for (const text of [changed.stderr, asked.stderr, done.stderr]) expect(text).not.toContain('apiVersion');
  });
});

describe('variables export and import', () => {
  it('exports dotenv without masked values, refuses a key in two scopes, and imports into another project', async () => {
    const both = await sandbox.run(['variables', 'export', '--group', 'acme']);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain('REGISTRY_USER=acme-ci\n');
    expect(both.stdout).toContain('# REGISTRY_PASSWORD: hidden, value not exported');
    expect(leaks(both.stdout)).toEqual([]);
    expect((await sandbox.run(['variables', 'export', '--project', 'acme/api'])).stderr).toContain('give --scope SCOPE or --environment NAME, or use -o json');
    expect((await sandbox.run(['variables', 'export', '--project', 'acme/api', '-o', 'yaml'])).code).toBe(2);
    expect((await sandbox.run(['variables', 'list', '--project', 'acme/api', '-o', 'dotenv'])).code).toBe(2);

    const file = join(tempDir(), 'prod.env');
    const exported = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--scope', 'production', '-o', 'dotenv']);
    writeFileSync(file, exported.stdout);
    expect(exported.stdout).toContain('KUBECONFIG="apiVersion: v1\\nkind: Config');
    const imported = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--scope', 'production', '-o', 'json']);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('+ API_URL (scope production)');
    expect(sandbox.db.table<{ key: string; owner_id: number; value: string }>('ci_variables').filter((v) => v.key === 'KUBECONFIG').map((v) => v.value)).toEqual([stored('KUBECONFIG', 'production')!.value, stored('KUBECONFIG', 'production')!.value]);
    // Again: nothing to do, nothing asked.
    const again = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--scope', 'production']);
    expect(again.stderr).toContain('0 to create, 0 to change, 2 already as the file says');
  });

  it('--environment exports what a job in that environment gets: the scope *, wildcards, the most specific scope winning', async () => {
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/variables', { key: 'LOG_LEVEL', value: 'warn', environment_scope: 'prod*' })).status).toBe(201);
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/variables', { key: 'REVIEW_HOST', value: 'review.example.com', environment_scope: 'review/*' })).status).toBe(201);
    try {
      const production = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--environment', 'production']);
      expect(production.code).toBe(0);
      expect(production.stdout).toContain('# CI/CD variables of project acme/api, as a job in environment production gets them');
      // prod* is more specific than *, production more specific than staging's absence; review/* does not match.
      expect(production.stdout).toContain('LOG_LEVEL=warn\n');
      expect(production.stdout).toContain('API_URL=https://api.acme.example.com\n');
      expect(production.stdout).toContain('# SIGNING_KEY: hidden, value not exported');
      expect(production.stdout).not.toContain('staging');
      expect(production.stdout).not.toContain('REVIEW_HOST');
      const review = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--environment', 'review/app-1', '-o', 'json']);
      expect(review.json().map((v: { key: string; environment_scope: string }) => `${v.key} ${v.environment_scope}`)).toEqual(expect.arrayContaining(['LOG_LEVEL *', 'REVIEW_HOST review/*', 'SIGNING_KEY *']));
      expect(review.stdout).not.toContain('prod');
      const listed = await sandbox.run(['variables', 'list', '--project', 'acme/api', '--environment', 'production', '-o', 'json']);
      expect(listed.json().map((v: { key: string; environment_scope: string }) => `${v.key} ${v.environment_scope}`)).toEqual(expect.arrayContaining(['API_URL production', 'DEPLOY_TOKEN production', 'KUBECONFIG production', 'LOG_LEVEL prod*', 'SIGNING_KEY *', 'REGISTRY_USER *', 'HTTP_PROXY undefined']));
      // --scope keeps its meaning, the scope field, and says what a job there also gets.
      const scoped = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--scope', 'production']);
      expect(scoped.stdout).not.toContain('LOG_LEVEL');
      expect(scoped.stderr).toContain('left out LOG_LEVEL (scope *), SIGNING_KEY (scope *), LOG_LEVEL (scope prod*), which a job in environment production also gets: --environment production exports all it gets');
      expect((await sandbox.run(['variables', 'export', '--project', 'acme/api', '--scope', 'production', '--environment', 'production'])).code).toBe(2);
      expect((await sandbox.run(['variables', 'export', '--project', 'acme/api', '--environment', 'review/*'])).stderr).toContain("error: --environment takes an environment's name");
      // Two wildcard scopes of one key matching the name: the service gives either, so no guess.
      expect((await sandbox.call('POST', '/projects/acme%2Fapi/variables', { key: 'LOG_LEVEL', value: 'error', environment_scope: '*duction' })).status).toBe(201);
      const tied = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--environment', 'production']);
      expect(tied.code).toBe(2);
      expect(tied.stderr).toContain('error: LOG_LEVEL is in two scopes matching production (prod* and *duction)');
    } finally {
      for (const [key, scope] of [['LOG_LEVEL', 'prod*'], ['LOG_LEVEL', '*duction'], ['REVIEW_HOST', 'review/*']]) await sandbox.call('DELETE', `/projects/acme%2Fapi/variables/${key}?filter[environment_scope]=${encodeURIComponent(scope)}`);
    }
  });

  it('--environment adds what a job inherits: instance, then groups top down, then the project, the nearer level winning over a more specific scope', async () => {
    expect((await sandbox.run(['groups', 'create', '--name', 'levels', '--path', 'levels', '--parent', 'acme'])).code).toBe(0);
    expect((await sandbox.run(['projects', 'create', '--name', 'svc', '--namespace', 'acme/levels'])).code).toBe(0);
    const set = async (path: string, key: string, value: string, scope?: string) =>
      expect((await sandbox.call('POST', `${path}/variables`, { key, value, ...(scope ? { environment_scope: scope } : {}) })).status).toBe(201);
    await set('/admin/ci', 'LEVEL_INSTANCE', 'i');
    await set('/admin/ci', 'LEVEL_WHO', 'instance');
    await set('/groups/acme', 'LEVEL_WHO', 'group', 'production');
    await set('/groups/acme%2Flevels', 'LEVEL_WHO', 'subgroup');
    await set('/groups/acme%2Flevels', 'LEVEL_SUB', 'sub-any');
    await set('/groups/acme%2Flevels', 'LEVEL_SUB', 'sub-production', 'production');
    await set('/projects/acme%2Flevels%2Fsvc', 'LEVEL_PROJECT', 'p');
    try {
      const exported = await sandbox.run(['variables', 'export', '--project', 'acme/levels/svc', '--environment', 'production']);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toContain('as a job in environment production gets them from the instance, group acme, group acme/levels, project acme/levels/svc');
      // The subgroup's * beats the group's production: the nearer level wins first, then the more specific scope.
      for (const line of ['LEVEL_INSTANCE=i', 'LEVEL_WHO=subgroup', 'LEVEL_SUB=sub-production', 'LEVEL_PROJECT=p', 'REGISTRY_USER=acme-ci']) expect(exported.stdout).toContain(`${line}\n`);
      expect(exported.stderr).toBe('');
      // A group Maintainer may not read the instance's variables: named as not included, not silently left out.
      const maintainer = await sandbox.run(['variables', 'list', '--project', 'acme/levels/svc', '--environment', 'production', '-o', 'json'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
      expect(maintainer.code, maintainer.stderr).toBe(0);
      expect(maintainer.stderr).toContain('not included: the variables of the instance (only administrators may read them)');
      expect(maintainer.json().map((v: { key: string; value: string }) => `${v.key}=${v.value}`)).toEqual(expect.arrayContaining(['LEVEL_WHO=subgroup', 'LEVEL_PROJECT=p']));
      expect(maintainer.stdout).not.toContain('LEVEL_INSTANCE');
    } finally {
      for (const key of ['LEVEL_INSTANCE', 'LEVEL_WHO']) await sandbox.call('DELETE', `/admin/ci/variables/${key}`);
      await sandbox.call('DELETE', '/groups/acme/variables/LEVEL_WHO');
    }
  });

  it('dotenv keeps what makes a variable a file or protected, so a copy to another project is no less protected', async () => {
    const exported = await sandbox.run(['variables', 'export', '--project', 'acme/api', '--scope', 'production']);
    expect(exported.stdout).toContain('\\n" # forgectl: file protected\n');
    const file = join(tempDir(), 'attributes.env');
    writeFileSync(file, exported.stdout);
    const imported = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--scope', 'production', '--yes']);
    expect(imported.code).toBe(0);
    const copy = (await sandbox.run(['variables', 'get', 'KUBECONFIG', '--project', 'acme/web', '--scope', 'production', '-o', 'json'])).json();
    expect(copy).toMatchObject({ variable_type: 'file', protected: true, raw: false, value: stored('KUBECONFIG', 'production')!.value });
    expect((await sandbox.run(['variables', 'get', 'API_URL', '--project', 'acme/web', '--scope', 'production', '-o', 'json'])).json()).toMatchObject({ variable_type: 'env_var', protected: false });

    writeFileSync(file, 'A=1 # forgectl: protectd\n');
    sandbox.clearRequests();
    const typo = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--yes']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('line 1: unknown attribute "protectd"');
    expect(sandbox.requests()).toEqual([]);
  });

  it('exports JSON with secrets as environment references, and imports them from the environment; asks before overwriting', async () => {
    const exported = await sandbox.run(['variables', 'export', '--group', 'acme', '-o', 'json']);
    const records = JSON.parse(exported.stdout);
    expect(records.find((v: { key: string }) => v.key === 'REGISTRY_PASSWORD')).toEqual({
      variable_type: 'env_var', key: 'REGISTRY_PASSWORD', protected: true, masked: true, raw: false, environment_scope: '*', description: 'pushes images to the registry', hidden: true, value_from: { env: 'REGISTRY_PASSWORD' },
    });
    expect(leaks(exported.stdout)).toEqual([]);
    const file = join(tempDir(), 'acme.json');
    writeFileSync(file, exported.stdout);
    sandbox.clearRequests();
    const missing = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--yes']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('the environment variable REGISTRY_PASSWORD is not set');
    expect(sandbox.requests()).toEqual([]);
    const env = { REGISTRY_PASSWORD: 'rg-imported-pw-1', DOCKER_AUTH_CONFIG: '{"auths":{}}-imported', VAULT_TOKEN: 'hvs.imported-1' };
    const imported = await sandbox.run(['variables', 'import', file, '--project', 'acme/web'], { env });
    expect(imported.code).toBe(0);
    expect(leaks(imported.stdout + imported.stderr)).toEqual([]);
    const web = (await sandbox.run(['variables', 'get', 'REGISTRY_PASSWORD', '--project', 'acme/web', '-o', 'json'])).json();
    expect(web).toMatchObject({ hidden: true, protected: true, value: null });
    // Change one by hand: the import overwrites it, after asking.
    await sandbox.run(['variables', 'set', 'REGISTRY_USER', '--project', 'acme/web', '--value', 'someone-else']);
    const overwrite = await sandbox.run(['variables', 'import', file, '--project', 'acme/web'], { env });
    expect(overwrite.code).toBe(2);
    expect(overwrite.stderr).toContain('~ REGISTRY_USER (scope *): value "someone-else" → "acme-ci"');
    expect(overwrite.stderr).toContain('Overwrite');
    expect((await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--yes'], { env })).code).toBe(0);
    expect(sandbox.db.table<{ key: string; value: string; owner_id: number }>('ci_variables').filter((v) => v.key === 'REGISTRY_USER').map((v) => v.value)).toEqual(['acme-ci', 'acme-ci']);
  });

  it('refuses to change whether an existing variable is hidden, before sending anything', async () => {
    const file = join(tempDir(), 'hide.json');
    writeFileSync(file, JSON.stringify([{ key: 'NODE_ENV', value: 'production', hidden: true, masked: true }]));
    sandbox.clearRequests();
    const refused = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('NODE_ENV (scope *) exists and is not hidden');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('--dry-run of an import prints the request of each variable it would write, and sends none', async () => {
    const file = join(tempDir(), 'three.env');
    writeFileSync(file, 'DRY_A=1\nDRY_B=2\nDRY_C=3\n');
    sandbox.clearRequests();
    const dry = await sandbox.run(['variables', 'import', file, '--project', 'acme/web', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.match(/^POST \S+\/projects\/acme%2Fweb\/variables$/gm)).toHaveLength(3);
    for (const key of ['DRY_A', 'DRY_B', 'DRY_C']) expect(dry.stdout).toContain(`"key": "${key}"`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('refuses a file it cannot read or parse (exit 2)', async () => {
    const file = join(tempDir(), 'bad.env');
    writeFileSync(file, 'GOOD=1\nthis is not dotenv\n');
    expect((await sandbox.run(['variables', 'import', file, '--project', 'acme/web'])).stderr).toContain('line 2 is not KEY=value');
    expect((await sandbox.run(['variables', 'import', join(tempDir(), 'none.env'), '--project', 'acme/web'])).code).toBe(2);
  });
});

describe('variables as agent tools', () => {
  it('no tool result carries a masked or hidden value, even asked for with show_values; no tool reads the server\'s environment', async () => {
    const tools = await buildCatalogue(manifest, { toolsets: ['ci'], allowWrite: ['ci'] });
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['variables_list', 'variables_get', 'variables_set', 'variables_delete', 'variables_export']));
    expect(names).not.toContain('variables_import');
    const set = tools.find((tool) => tool.name === 'variables_set')!;
    expect(Object.keys(set.inputSchema.properties!)).not.toEqual(expect.arrayContaining(['value_env']));
    expect(Object.keys(set.inputSchema.properties!).filter((name) => name.startsWith('value'))).toEqual(['value']);
    const server = new ToolServer({ tools, commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const results = [
      await server.call('variables_list', { project: 'acme/api', show_values: true, per_page: 100 }),
      await server.call('variables_get', { key: 'SIGNING_KEY', project: 'acme/api', show_values: true }),
      await server.call('variables_list', { group: 'acme', show_values: true }),
      await server.call('variables_list', { instance: true, show_values: true }),
      await server.call('variables_export', { project: 'acme/api', scope: 'production' }),
    ];
    const text = JSON.stringify(results);
    expect(text).toContain('LOG_LEVEL');
    expect(leaks(text)).toEqual([]);
  });

  it('the read-only api tool returns no masked or hidden value of a project, a group or the instance, one or a list, paged or not', async () => {
    const server = new ToolServer({ tools: await buildCatalogue(manifest), commands, execute: (invocation, streams) => execute(invocation, { ...streams, env: sandbox.env() }) });
    const paths = ['/projects/acme%2Fapi/variables', '/projects/acme%2Fapi/variables/DEPLOY_TOKEN?filter[environment_scope]=production', '/groups/acme/variables', '/admin/ci/variables'];
    const results = [];
    for (const path of paths) for (const paginate of path.includes('DEPLOY_TOKEN') ? [false] : [false, true]) results.push(await server.call('api', { path, paginate }));
    const text = JSON.stringify(results);
    expect(results.filter((result) => result.isError)).toEqual([]);
    expect(text).toContain('DEPLOY_TOKEN');
    expect(text).toContain('"masked":true');
    expect(leaks(text)).toEqual([]);
  });
});

describe('variables through api', () => {
  it('api shows masked and hidden values as null, in a pipe even with --show-values; --show-values shows masked ones at a terminal', async () => {
    for (const path of ['/projects/acme%2Fapi/variables', '/groups/acme/variables', '/admin/ci/variables', '/projects/acme%2Fapi/variables/DEPLOY_TOKEN?filter[environment_scope]=production']) {
      for (const extra of [[], ['--paginate'], ['--show-values'], ['-o', 'ndjson', '--paginate']]) {
        if (extra.includes('--paginate') && path.includes('DEPLOY_TOKEN')) continue;
        const result = await sandbox.run(['api', path, ...extra]);
        expect(result.code, `${path} ${extra.join(' ')}: ${result.stderr}`).toBe(0);
        expect(result.stdout).toMatch(/"masked": ?true/);
        expect(leaks(result.stdout + result.stderr), `${path} ${extra.join(' ')}`).toEqual([]);
      }
    }
    const piped = await sandbox.run(['api', '/projects/acme%2Fapi/variables', '--show-values']);
    expect(piped.stderr).toContain('--show-values shows masked values only at a terminal');
    const terminal = await sandbox.run(['api', '/projects/acme%2Fapi/variables'], { tty: true });
    expect(leaks(terminal.stdout)).toEqual([]);
    const shown = await sandbox.run(['api', '/projects/acme%2Fapi/variables', '--show-values'], { tty: true });
    expect(leaks(shown.stdout).length).toBeGreaterThan(0);
  });
});

describe('variables in tables and errors', () => {
  it('a masked or hidden value reads masked or hidden in a table, not blank like an empty value; null in JSON', async () => {
    expect((await sandbox.call('POST', '/projects/acme%2Fapi/variables', { key: 'EMPTY_ONE', value: '' })).status).toBe(201);
    const rows = (await sandbox.run(['variables', 'list', '--project', 'acme/api', '--fields', 'key,value'])).stdout.split('\n');
    expect(rows).toContain('DEPLOY_TOKEN\tmasked');
    expect(rows).toContain('EMPTY_ONE\t');
    const json = (await sandbox.run(['variables', 'get', 'DEPLOY_TOKEN', '--project', 'acme/api', '-o', 'json'])).json();
    expect(json.value).toBeNull();
    expect((await sandbox.run(['variables', 'get', 'DEPLOY_TOKEN', '--project', 'acme/api', '--fields', 'value'])).stdout).toBe('value\tmasked\n');
  });

  it('a 403 of the instance variables says they are for administrators', async () => {
    const result = await sandbox.run(['variables', 'list', '--instance'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe('error: 403 Forbidden (GET /admin/ci/variables → 403)\nhint: this is for administrators of the instance, and the token in use is not one\n');
  });
});
