import { describe, expect, it } from 'vitest';
import { startTestSandbox, useTestSandbox } from '../../../test/helpers/cli.js';

const sandbox = useTestSandbox();

describe('protect takes the name as the argument, like get, update and unprotect, and --name as scripts give it', () => {
  it('positional and --name protect alike; both differing or neither exit 2 with nothing sent', async () => {
    for (const [noun, name] of [['protected-tags', 'pos-v*'], ['protected-branches', 'pos/*']]) {
      const positional = await sandbox.run([noun, 'protect', name, '--project', 'acme/api', '-o', 'json']);
      expect(positional.code, positional.stderr).toBe(0);
      expect(positional.json().name).toBe(name);
      const again = await sandbox.run([noun, 'protect', '--project', 'acme/api', '--name', name]);
      expect(again.code, again.stderr).toBe(0);
      expect((await sandbox.run([noun, 'protect', name, '--project', 'acme/api', '--name', name])).code).toBe(0);
      sandbox.clearRequests();
      const two = await sandbox.run([noun, 'protect', name, '--project', 'acme/api', '--name', 'other']);
      expect(two.code).toBe(2);
      expect(two.stderr).toContain(`two ${noun === 'protected-tags' ? 'tag' : 'branch'} names given: ${name} and --name other`);
      const none = await sandbox.run([noun, 'protect', '--project', 'acme/api']);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain(`hint: forgectl ${noun} protect NAME --project ID|PATH`);
      expect(sandbox.requests()).toEqual([]);
      expect((await sandbox.run([noun, 'unprotect', name, '--project', 'acme/api', '--yes'])).code).toBe(0);
    }
  });
});

describe('protected-tags', () => {
  it("protects 'v*' for maintainers and lists it", async () => {
    const result = await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'v*', '--create-access-level', 'maintainer', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ name: 'v*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] });
    const list = await sandbox.run(['protected-tags', 'list', '--project', 'acme/api', '-o', 'json']);
    expect(list.json().map((t: { name: string }) => t.name)).toContain('v*');
    const piped = await sandbox.run(['protected-tags', 'list', '--project', 'acme/api']);
    expect(piped.stdout).toMatch(/^v\*\tMaintainers$/m); // who may create, in words
  });

  it('sends allowed_to_create entries and the access level by name', async () => {
    const result = await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'deploy-*', '--create-access-level', 'no-access', '--allowed-to-create', 'user:2,deploy-key:3', '--allowed-to-create', 'developer', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(result.json().create_access_levels).toMatchObject([
      { access_level: 0, access_level_description: 'No one' },
      { user_id: 2, access_level_description: 'Alice Maintainer' },
      { deploy_key_id: 3, access_level_description: 'CI deploy key' },
      { access_level: 30, access_level_description: 'Developers + Maintainers' },
    ]);
  });

  it('gets and unprotects names with slashes and wildcards as one encoded segment', async () => {
    expect((await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'release/*'])).code).toBe(0);
    sandbox.clearRequests();
    const got = await sandbox.run(['protected-tags', 'get', 'release/*', '--project', 'acme/api', '-o', 'json']);
    expect(got.json().name).toBe('release/*');
    expect(sandbox.requests()[0].path).toBe('/api/v4/projects/acme%2Fapi/protected_tags/release%2F*');
    expect((await sandbox.run(['protected-tags', 'unprotect', 'release/*', '--project', 'acme/api'])).code).toBe(2);
    expect((await sandbox.run(['protected-tags', 'unprotect', 'release/*', '--project', 'acme/api', '--yes'])).code).toBe(0);
    expect((await sandbox.run(['protected-tags', 'get', 'release/*', '--project', 'acme/api'])).code).toBe(5);
  });

  it('unprotect finds the rule before asking: a name not protected is exit 5 with where to look, nothing asked or sent', async () => {
    sandbox.clearRequests();
    const missing = await sandbox.run(['protected-tags', 'unprotect', 'nightly-*', '--project', 'acme/api']);
    expect(missing.code).toBe(5);
    expect(missing.stderr).not.toContain('confirmation');
    expect(missing.stderr).toBe('error: 404 Not found (GET /projects/acme%2Fapi/protected_tags/nightly-* → 404)\nhint: forgectl protected-tags list --project acme/api lists its protected tags\n');
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    // The question says who may create such tags now.
    expect((await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'nightly-*', '--create-access-level', 'developer'])).code).toBe(0);
    const asked = await sandbox.run(['protected-tags', 'unprotect', 'nightly-*', '--project', 'acme/api']);
    expect(asked.stderr).toContain('confirmation needed: Unprotect tags "nightly-*" of project acme/api (create: Developers + Maintainers)?');
  });

  it('protecting again as asked succeeds, so a bulk run can be re-run; protected differently says what differs', async () => {
    const args = ['protected-tags', 'protect', '--project', 'acme/api', '--name', 'rc-*', '--create-access-level', 'developer', '--allowed-to-create', 'user:alice'];
    expect((await sandbox.run(args)).code).toBe(0);
    const again = await sandbox.run([...args, '-o', 'json']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('tag rc-* of project acme/api is already protected as asked\n');
    expect(again.json()).toMatchObject({ name: 'rc-*', create_access_levels: [{ access_level: 30 }, { user_id: 2 }] });
    sandbox.clearRequests();
    const other = await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'rc-*']);
    expect(other.code).toBe(6);
    expect(other.stderr).toBe(
      'error: tag rc-* of project acme/api is already protected, differently (create: developer, user:alice there, maintainer asked) (POST /projects/acme%2Fapi/protected_tags → 422)\n' +
      "hint: a protected tag cannot be changed: unprotect it (forgectl protected-tags unprotect 'rc-*' --project acme/api --yes), then protect it again\n",
    );
    expect(sandbox.requests().filter((r) => r.method !== 'GET' && r.method !== 'POST')).toEqual([]);
  });

  it('checks access levels and entries before sending', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'x', '--create-access-level', 'owner'])).code).toBe(2);
    expect((await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'x', '--allowed-to-create', 'team:4'])).code).toBe(2);
    expect((await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('shows the 422 messages of the service (exit 6)', async () => {
    const result = await sandbox.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'release-*', '--allowed-to-create', 'group:1']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('Name has already been taken');
    expect(result.stderr).toContain('group does not have access');
  });
});

describe('protected-tags on an edition that drops who is named (free)', () => {
  it('says the users the instance left out of --allowed-to-create, exit 9, instead of success', async () => {
    const free = await startTestSandbox({ tier: 'free' });
    try {
      const result = await free.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'hotfix-*', '--create-access-level', 'no-access', '--allowed-to-create', 'user:alice']);
      expect(result.code).toBe(9);
      expect(result.stderr).toContain('the instance left out --allowed-to-create user:alice');
      expect((await free.run(['protected-tags', 'protect', '--project', 'acme/api', '--name', 'v*'])).code).toBe(0);
    } finally {
      await free.close();
    }
  });
});
