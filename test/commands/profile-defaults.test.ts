import { describe, expect, it } from 'vitest';
import { tempDir, useTestSandbox } from '../helpers/cli.js';

const sandbox = useTestSandbox();

/** A profile of its own with default_group acme and default_project acme/api: the env that selects it. */
async function withBothDefaults(): Promise<Record<string, string>> {
  const env = { FORGECTL_CONFIG_DIR: tempDir() };
  for (const [key, value] of [['url', sandbox.rootUrl], ['default_group', 'acme'], ['default_project', 'acme/api']]) {
    expect((await sandbox.run(['profile', 'set', key, value], { env })).code).toBe(0);
  }
  return env;
}

describe("the profile's default_project and default_group name the owner when no option does", () => {
  it('variables, protected-branches, members and deploy-tokens take default_project, as their help says', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir() };
    expect((await sandbox.run(['profile', 'set', 'url', sandbox.rootUrl], { env })).code).toBe(0);
    expect((await sandbox.run(['profile', 'set', 'default_project', 'acme/api'], { env })).code).toBe(0);
    for (const argv of [['variables', 'list'], ['variables', 'get', 'LOG_LEVEL'], ['protected-branches', 'list'], ['members', 'list'], ['deploy-tokens', 'list']]) {
      const result = await sandbox.run([...argv, '-o', 'json'], { env });
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      const explicit = await sandbox.run([...argv, '--project', 'acme/api', '-o', 'json'], { env });
      expect(result.stdout, argv.join(' ')).toBe(explicit.stdout);
    }
    // A change goes there too, and says where.
    sandbox.clearRequests();
    const set = await sandbox.run(['variables', 'set', 'FROM_DEFAULT', '--value', 'x'], { env });
    expect(set.code, set.stderr).toBe(0);
    expect(sandbox.requests().find((r) => r.method === 'POST')?.path).toBe('/api/v4/projects/acme%2Fapi/variables');
  });

  it('default_group when there is no default_project; an option given wins', async () => {
    const env = { FORGECTL_CONFIG_DIR: tempDir() };
    expect((await sandbox.run(['profile', 'set', 'url', sandbox.rootUrl], { env })).code).toBe(0);
    expect((await sandbox.run(['profile', 'set', 'default_group', 'acme'], { env })).code).toBe(0);
    for (const argv of [['variables', 'list'], ['members', 'list'], ['deploy-tokens', 'list']]) {
      const result = await sandbox.run([...argv, '-o', 'json'], { env });
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, argv.join(' ')).toBe((await sandbox.run([...argv, '--group', 'acme', '-o', 'json'], { env })).stdout);
    }
    const project = await sandbox.run(['members', 'list', '--project', 'acme/web', '-o', 'json'], { env });
    expect(project.stdout).toBe((await sandbox.run(['members', 'list', '--project', 'acme/web', '-o', 'json'])).stdout);
    // Without any default, the question is asked as before.
    const none = await sandbox.run(['variables', 'list'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: which variables\? give --project, --group or --instance/);
  });

  it('a deletion of a project or group never takes the default: a script\'s empty "$GROUP" with --yes deletes nothing', async () => {
    const env = await withBothDefaults();
    sandbox.clearRequests();
    for (const noun of ['groups', 'projects']) {
      const missing = await sandbox.run([noun, 'delete', '--yes'], { env });
      expect(missing.code, `${noun}: ${missing.stderr}`).toBe(2);
      const empty = await sandbox.run([noun, 'delete', '', '--yes'], { env });
      expect(empty.code, `${noun}: ${empty.stderr}`).toBe(2);
      const scope = noun.slice(0, -1);
      expect(empty.stderr).toBe(`error: no ${scope} given: a deletion takes the ${scope} as an argument, never the profile's default_${scope}; nothing was sent\nhint: forgectl ${noun} delete ID|PATH\n`);
    }
    expect(sandbox.requests()).toEqual([]);
  });

  it('a transfer, an archive, an unarchive or a new visibility or path never takes the default either', async () => {
    const env = await withBothDefaults();
    sandbox.clearRequests();
    const acts = { transfer: 'a transfer', archive: 'an archive', unarchive: 'an unarchive' };
    for (const [verb, act] of Object.entries(acts)) {
      const extra = verb === 'transfer' ? ['--namespace', 'acme'] : [];
      // An unquoted empty $P leaves the argument out; a quoted one gives ''.
      for (const given of [[], ['']]) {
        const result = await sandbox.run(['projects', verb, ...given, ...extra, '--yes'], { env });
        expect(result.code, `${verb} ${JSON.stringify(given)}: ${result.stderr}`).toBe(2);
        if (given.length) expect(result.stderr).toBe(`error: no project given: ${act} takes the project as an argument, never the profile's default_project; nothing was sent\nhint: forgectl projects ${verb} ID|PATH\n`);
      }
    }
    const changes: [string, string[]][] = [['projects', ['--visibility', 'public']], ['projects', ['--path', 'moved']], ['groups', ['--visibility', 'public']]];
    for (const [noun, change] of changes) {
      const result = await sandbox.run([noun, 'update', ...change, '--yes'], { env });
      expect(result.code, `${noun} update ${change.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain('a change of visibility or path takes the');
    }
    expect(sandbox.requests()).toEqual([]);
    // Other settings still go to the default, as the help says.
    const other = await sandbox.run(['projects', 'update', '--description', 'from the default'], { env });
    expect(other.code, other.stderr).toBe(0);
    expect(sandbox.requests().find((r) => r.method === 'PUT')?.path).toBe('/api/v4/projects/acme%2Fapi');
  });
});
