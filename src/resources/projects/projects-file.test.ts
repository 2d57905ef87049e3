import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../../../test/helpers/cli.js';

/**
 * The fleet of the commands whose --group names the group's own records (variables, protected-branches,
 * deploy-tokens, members): --projects-file instead of --project, run once per project as the fleet commands are.
 */

const sandbox = useTestSandbox();
const dir = tempDir();
const projectsFile = (name: string, lines: string[]): string => {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
const TWO = projectsFile('two.txt', ['acme/api', 'acme/web']);
/** A project the instance does not have, between two it has. */
const WITH_UNKNOWN = projectsFile('unknown.txt', ['acme/api', 'acme/nope', 'acme/web']);
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');
const variable = async (project: string, key: string) => sandbox.call('GET', `/projects/${encodeURIComponent(project)}/variables/${key}`);
type Row = { project: string; outcome: string; error: string | null } & Record<string, unknown>;

describe('--projects-file: bad input is refused before anything is sent', () => {
  const lists = [['variables', 'list'], ['protected-branches', 'list'], ['deploy-tokens', 'list'], ['members', 'list']];
  it.each(lists)('%s %s', async (...command) => {
    sandbox.clearRequests();
    const cases: Array<[string[], RegExp]> = [
      [['--projects-file', TWO, '--project', 'acme/api'], /^error: give --project or --projects-file, not both$/m],
      [['--projects-file', TWO, '--group', 'acme'], /^error: give --group or --projects-file, not both$/m],
      [['--project', 'acme/api', '--match', 'acme/*'], /^error: --match applies to --projects-file$/m],
      [['--group', 'acme', '--continue-on-error', '--failed-to', join(dir, 'failed.txt')], /^error: --continue-on-error, --failed-to apply to --projects-file$/m],
      [['--projects-file', join(dir, 'missing.txt')], /^error: cannot read .*missing\.txt: no such file/m],
      [['--projects-file', '-'], /stdin:1: "acme\/\*" is not a project ID or full path/],
    ];
    for (const [extra, message] of cases) {
      const result = await sandbox.run([...command, ...extra], { input: 'acme/*\n' });
      expect(result.code, extra.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('--instance is no fleet either; variables export writes one project\'s variables only', async () => {
    sandbox.clearRequests();
    const instance = await sandbox.run(['variables', 'list', '--instance', '--projects-file', TWO]);
    expect(instance.code).toBe(2);
    expect(instance.stderr).toContain('give --instance or --projects-file, not both');
    expect((await sandbox.run(['variables', 'export', '--projects-file', TWO])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });
});

describe('variables over --projects-file', () => {
  it('sets a variable in every project listed, one row each with the project in front', async () => {
    const result = await sandbox.run(['variables', 'set', 'FLEET_FLAG', '--projects-file', TWO, '--value', 'on', '--description', 'set by the fleet']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^acme\/api\tok\tFLEET_FLAG\t\*\tenv_var\t/m);
    expect(result.stdout).toMatch(/^acme\/web\tok\tFLEET_FLAG\t\*\tenv_var\t/m);
    expect(result.stderr).toContain('acme/web: Created variable FLEET_FLAG (scope *) of project acme/web');
    expect(result.stderr).toMatch(/2 projects: 2 ok in /);
    for (const project of ['acme/api', 'acme/web']) expect((await variable(project, 'FLEET_FLAG')).body).toMatchObject({ value: 'on', description: 'set by the fleet' });
    const got = await sandbox.run(['variables', 'get', 'FLEET_FLAG', '--projects-file', TWO, '--fields', 'project,outcome,value', '-o', 'json']);
    expect(got.json()).toEqual([{ project: 'acme/api', outcome: 'ok', value: 'on' }, { project: 'acme/web', outcome: 'ok', value: 'on' }]);
    const matched = await sandbox.run(['variables', 'list', '--projects-file', TWO, '--exclude', 'acme/api', '--fields', 'project,key', '-o', 'json']);
    expect(new Set((matched.json() as Row[]).map((row) => row.project))).toEqual(new Set(['acme/web']));
  });

  it('a project that does not exist fails, the others are done, exit 9 naming it; without --continue-on-error no more are started', async () => {
    const result = await sandbox.run(['variables', 'set', 'UNKNOWN_TEST', '--projects-file', WITH_UNKNOWN, '--value', 'x', '--continue-on-error', '-o', 'json']);
    expect(result.code).toBe(9);
    expect((result.json() as Row[]).map((row) => [row.project, row.outcome])).toEqual([['acme/api', 'ok'], ['acme/nope', 'failed'], ['acme/web', 'ok']]);
    expect(result.stderr).toMatch(/acme\/nope: error: 404 Project Not Found/);
    expect(result.stderr).toMatch(/attention: 3 projects: 2 ok, 1 failed .* — failed: acme\/nope/);
    expect((await variable('acme/web', 'UNKNOWN_TEST')).status).toBe(200);

    const failed = join(dir, 'failed.txt');
    const stopped = await sandbox.run(['variables', 'set', 'STOPPED_TEST', '--projects-file', WITH_UNKNOWN, '--value', 'x', '--concurrency', '1', '--failed-to', failed, '-o', 'json']);
    expect(stopped.code).toBe(9);
    expect((stopped.json() as Row[]).map((row) => row.outcome)).toEqual(['ok', 'failed', 'skipped']);
    expect((await variable('acme/web', 'STOPPED_TEST')).status).toBe(404);
    expect(readFileSync(failed, 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))).toEqual(['acme/nope', 'acme/web']);
  });

  it('a masked value typed at a terminal is asked for once for every project, and never printed', async () => {
    const secret = 'fleet-secret-8chars';
    const result = await sandbox.run(['variables', 'set', 'FLEET_SECRET', '--projects-file', TWO, '--masked', '--value-stdin'], { tty: true, input: `${secret}\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/✔/g)?.length).toBe(1); // one prompt answered
    for (const project of ['acme/api', 'acme/web']) expect((await variable(project, 'FLEET_SECRET')).body).toMatchObject({ masked: true, value: secret });
    expect(result.stdout + result.stderr).not.toContain(secret);
    // From a pipe: stdin read once, for all.
    const piped = await sandbox.run(['variables', 'set', 'FLEET_SECRET', '--projects-file', TWO, '--value-stdin', '-o', 'json'], { input: 'another-secret-1\n' });
    expect(piped.code, piped.stderr).toBe(0);
    expect((await variable('acme/web', 'FLEET_SECRET')).body.value).toBe('another-secret-1');
    expect(piped.stdout + piped.stderr).not.toContain('another-secret-1');
    const refused = await sandbox.run(['variables', 'set', 'FLEET_SECRET', '--projects-file', TWO, '--masked', '--value', secret]);
    expect(refused.code).toBe(2);
  });

  it('deletes over the fleet only after one question naming the projects; off a terminal without --yes nothing is deleted', async () => {
    sandbox.clearRequests();
    const asked = await sandbox.run(['variables', 'delete', 'FLEET_FLAG', '--projects-file', TWO]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/confirmation needed: Delete variable FLEET_FLAG \(scope \*\) \[\d+ characters?, "set by the fleet"\] of project acme\/(api|web), and run the same command in 1 more project \(acme\/(web|api)\), not read yet\?/);
    expect(writes()).toEqual([]);
    // At a terminal the question names the variable and its size, never its value; "no" deletes nothing.
    const declined = await sandbox.run(['variables', 'delete', 'FLEET_FLAG', '--projects-file', TWO], { tty: true, input: 'n\n' });
    expect(declined.code).not.toBe(0);
    expect(declined.stderr).toContain('Delete variable FLEET_FLAG (scope *) [2 characters, "set by the fleet"]');
    expect(declined.stderr).not.toContain('"on"');
    expect(writes()).toEqual([]);
    const done = await sandbox.run(['variables', 'delete', 'FLEET_FLAG', '--projects-file', TWO, '--yes']);
    expect(done.code, done.stderr).toBe(0);
    for (const project of ['acme/api', 'acme/web']) expect((await variable(project, 'FLEET_FLAG')).status).toBe(404);
  });

  it('imports one set into every project listed: values from the environment, never printed; asks before overwriting', async () => {
    const file = join(dir, 'set.json');
    writeFileSync(file, JSON.stringify([
      { key: 'SHARED_URL', value: 'https://shared.example.com', environment_scope: '*' },
      { key: 'SHARED_KEY', masked: true, value_from: { env: 'SHARED_KEY' }, environment_scope: 'production' },
    ]));
    const env = { SHARED_KEY: 'shared-key-value-1' };
    const result = await sandbox.run(['variables', 'import', file, '--projects-file', TWO, '-o', 'json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((result.json() as Row[]).map((row) => [row.project, row.key, row.action, row.result])).toEqual([
      ['acme/api', 'SHARED_URL', 'create', 'done'], ['acme/api', 'SHARED_KEY', 'create', 'done'],
      ['acme/web', 'SHARED_URL', 'create', 'done'], ['acme/web', 'SHARED_KEY', 'create', 'done'],
    ]);
    expect((await sandbox.call('GET', '/projects/acme%2Fweb/variables/SHARED_KEY?filter[environment_scope]=production')).body).toMatchObject({ masked: true, value: 'shared-key-value-1' });
    // Changed in one project: the import overwrites only after asking, once.
    await sandbox.call('PUT', '/projects/acme%2Fweb/variables/SHARED_URL', { value: 'https://changed.example.com' });
    sandbox.clearRequests();
    const asked = await sandbox.run(['variables', 'import', file, '--projects-file', TWO], { env });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('acme/web: ~ SHARED_URL (scope *): value "https://changed.example.com" → "https://shared.example.com"');
    expect(writes()).toEqual([]);
    const again = await sandbox.run(['variables', 'import', file, '--projects-file', TWO, '--yes'], { env });
    expect(again.code).toBe(0);
    expect((await variable('acme/web', 'SHARED_URL')).body.value).toBe('https://shared.example.com');
    expect(result.stdout + result.stderr + asked.stderr + again.stdout + again.stderr).not.toContain('shared-key-value-1');
  });
});

describe('protected-branches over --projects-file', () => {
  it('protects, updates, gets and unprotects a branch in every project listed (unprotect asks first)', async () => {
    const protect = await sandbox.run(['protected-branches', 'protect', '--projects-file', TWO, '--name', 'hotfix/*', '--push-access-level', 'maintainer', '--merge-access-level', 'maintainer', '-o', 'json']);
    expect(protect.code, protect.stderr).toBe(0);
    expect((protect.json() as Row[]).map((row) => [row.project, row.name])).toEqual([['acme/api', 'hotfix/*'], ['acme/web', 'hotfix/*']]);
    const update = await sandbox.run(['protected-branches', 'update', 'hotfix/*', '--projects-file', TWO, '--allow-force-push']);
    expect(update.code, update.stderr).toBe(0);
    const got = await sandbox.run(['protected-branches', 'get', 'hotfix/*', '--projects-file', TWO, '--fields', 'project,allow_force_push', '-o', 'json']);
    expect(got.json()).toEqual([{ project: 'acme/api', allow_force_push: true }, { project: 'acme/web', allow_force_push: true }]);
    const listed = await sandbox.run(['protected-branches', 'list', '--projects-file', TWO]);
    expect(listed.stdout).toMatch(/^acme\/web\tok\thotfix\/\*\tfalse\tmaintainer\tmaintainer\tmaintainer\ttrue\t$/m);

    sandbox.clearRequests();
    const asked = await sandbox.run(['protected-branches', 'unprotect', 'hotfix/*', '--projects-file', WITH_UNKNOWN]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/Unprotect branches "hotfix\/\*" of project acme\/\w+ \(push: maintainer; merge: maintainer\), and run the same command in 2 more projects/);
    expect(writes()).toEqual([]);
    const done = await sandbox.run(['protected-branches', 'unprotect', 'hotfix/*', '--projects-file', WITH_UNKNOWN, '--yes', '--continue-on-error']);
    expect(done.code).toBe(9);
    expect(done.stderr).toContain('failed: acme/nope');
    for (const project of ['acme%2Fapi', 'acme%2Fweb']) expect((await sandbox.call('GET', `/projects/${project}/protected_branches/hotfix%2F*`)).status).toBe(404);
  });
});

describe('deploy-tokens over --projects-file', () => {
  it('create needs --output-dir: each token is shown once, so it goes to a file, never to the screen; nothing sent otherwise', async () => {
    sandbox.clearRequests();
    const bare = await sandbox.run(['deploy-tokens', 'create', '--projects-file', TWO, '--name', 'ci-pull', '--scopes', 'read_registry']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('over --projects-file give --output-dir DIR');
    const one = await sandbox.run(['deploy-tokens', 'create', '--projects-file', TWO, '--name', 'ci-pull', '--scopes', 'read_registry', '--output-file', join(dir, 'one.token')]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('--output-file holds one token');
    const single = await sandbox.run(['deploy-tokens', 'create', '--project', 'acme/api', '--name', 'ci-pull', '--scopes', 'read_registry', '--output-dir', dir]);
    expect(single.code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('writes each project\'s token to DIR/<project path>.token (0600), never over an existing one, and revokes them by name', async () => {
    const out = join(tempDir(), 'tokens');
    const created = await sandbox.run(['deploy-tokens', 'create', '--projects-file', TWO, '--name', 'ci-pull', '--scopes', 'read_registry', '--output-dir', out, '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const rows = created.json() as Row[];
    expect(rows.map((row) => [row.project, row.name, row.token])).toEqual([['acme/api', 'ci-pull', undefined], ['acme/web', 'ci-pull', undefined]]);
    const tokens = ['acme/api', 'acme/web'].map((project) => readFileSync(join(out, `${project}.token`), 'utf8').trim());
    for (const token of tokens) expect(token).toMatch(/^gldt-/);
    expect(new Set(tokens).size).toBe(2);
    expect(statSync(join(out, 'acme/web.token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(out, 'acme')).mode & 0o777).toBe(0o700);
    for (const token of tokens) expect(created.stdout + created.stderr).not.toContain(token);

    // A second run: acme/api's file is there and stays; acme/web's was moved away and gets a new token.
    rmSync(join(out, 'acme/web.token'));
    sandbox.clearRequests();
    const again = await sandbox.run(['deploy-tokens', 'create', '--projects-file', TWO, '--name', 'ci-pull', '--scopes', 'read_registry', '--output-dir', out, '--continue-on-error', '-o', 'json']);
    expect(again.code).toBe(9);
    expect((again.json() as Row[]).map((row) => [row.project, row.outcome])).toEqual([['acme/api', 'failed'], ['acme/web', 'ok']]);
    expect(again.stderr).toContain('acme/api.token exists');
    expect(readFileSync(join(out, 'acme/api.token'), 'utf8').trim()).toBe(tokens[0]);
    expect(sandbox.requests().filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/v4/projects/acme%2Fweb/deploy_tokens']);

    sandbox.clearRequests();
    const byId = await sandbox.run(['deploy-tokens', 'revoke', '1', '--projects-file', TWO, '--yes']);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toContain("a deploy token's id belongs to one project");
    const asked = await sandbox.run(['deploy-tokens', 'revoke', '--name', 'ci-pull', '--projects-file', TWO]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/Revoke deploy tokens? \d+ \("ci-pull", user gitlab\+deploy-token-\d+\).* of project acme\/\w+, and run the same command in 1 more project/);
    expect(writes()).toEqual([]);
    const revoked = await sandbox.run(['deploy-tokens', 'revoke', '--name', 'ci-pull', '--projects-file', WITH_UNKNOWN, '--yes', '--continue-on-error']);
    expect(revoked.code).toBe(9);
    expect(revoked.stderr).toMatch(/acme\/web: Revoked deploy tokens \d+ \("ci-pull".*\), \d+ \("ci-pull"/);
    const left = await sandbox.run(['deploy-tokens', 'list', '--projects-file', TWO, '--active', '-o', 'json']);
    expect((left.json() as Row[]).filter((row) => row.name === 'ci-pull')).toEqual([]);
  });
});

describe('members over --projects-file', () => {
  it('shows the project in front in a table too', async () => {
    const result = await sandbox.run(['members', 'list', '--projects-file', TWO]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^acme\/web\tok\t\d+\tomar\t/m);
  });
});
