import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { tokens, users } from '../../sandbox/model.js';

/** The service-accounts commands against the sandbox: the instance's and a top-level group's, by name or ID. */
const sandbox = useTestSandbox();
const usernames = (records: Array<{ username: string }>): string[] => records.map((a) => a.username);

describe('service-accounts list and create', () => {
  it('creates an instance account with what it is given, and lists it; a group\'s apart', async () => {
    const made = await sandbox.run(['service-accounts', 'create', '--instance', '--username', 'svc-nightly', '--name', 'Nightly', '-o', 'json']);
    expect(made.code).toBe(0);
    expect(made.json()).toMatchObject({ username: 'svc-nightly', name: 'Nightly', email: 'svc-nightly@noreply.127.0.0.1' });
    const group = await sandbox.run(['service-accounts', 'create', '--group', 'acme', '-o', 'json']);
    expect(group.json().username).toMatch(/^service_account_group_1_/);

    const instance = await sandbox.run(['service-accounts', 'list', '--instance', '--order-by', 'username', '--sort', 'asc', '-o', 'json']);
    expect(usernames(instance.json())).toEqual(expect.arrayContaining(['service_account_deploy', 'svc-nightly']));
    expect(usernames(instance.json())).not.toContain(group.json().username);
    const acme = await sandbox.run(['service-accounts', 'list', '--group', 'acme', '-o', 'json']);
    expect(usernames(acme.json())).toEqual([group.json().username]);
  });

  it('refuses bad input and a subgroup before sending anything (exit 2)', async () => {
    sandbox.clearRequests();
    const cases = [
      ['service-accounts', 'list'],
      ['service-accounts', 'list', '--instance', '--group', 'acme'],
      ['service-accounts', 'create', '--instance', '--username', '-bad'],
      ['service-accounts', 'create', '--instance', '--email', 'not-an-address'],
      ['service-accounts', 'create', '--group', 'acme/platform'],
      ['service-accounts', 'list', '--group', 'acme/platform'],
      ['service-accounts', 'update', 'svc-nightly', '--instance'],
      ['tokens', 'list', '--service-account', 'x', '--group', 'acme/platform'],
    ];
    for (const argv of cases) {
      const result = await sandbox.run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], argv.join(' ')).toMatch(/^error: /);
    }
    expect((await sandbox.run(['service-accounts', 'list', '--group', 'acme/platform'])).stderr).toContain('hint: its top-level group: --group acme');
    expect(sandbox.requests()).toEqual([]);
  });

  it('says what the service refuses: a taken username (exit 6), a non-administrator (exit 4)', async () => {
    const taken = await sandbox.run(['service-accounts', 'create', '--instance', '--username', 'alice']);
    expect(taken.code).toBe(6);
    expect(taken.stderr).toContain('Username has already been taken');
    const owner = await sandbox.run(['service-accounts', 'list', '--instance'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } });
    expect(owner.code).toBe(4);
    expect(owner.stderr).toContain('hint: this is for administrators of the instance, and the token in use is not one');
    // A group's accounts are its Owners' too: their 403 has other reasons.
    const maintainer = await sandbox.run(['service-accounts', 'list', '--group', 'acme'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(maintainer.code).toBe(4);
    expect(maintainer.stderr).not.toContain('administrators of the instance');
  });
});

describe('service-accounts update', () => {
  it('update --help says what each option changes, not what create makes up when it is not given', async () => {
    const help = (await sandbox.run(['service-accounts', 'update', '--help'])).stdout;
    expect(help).toMatch(/--name <text> +the new display name\n/);
    expect(help).toMatch(/--username <username> +the new username/);
    expect(help).not.toContain('default: one the service makes up');
    expect(help).not.toContain('Service account user');
    expect((await sandbox.run(['service-accounts', 'create', '--help'])).stdout).toContain('(default: "Service account user")');
  });

  it('finds the account by username or ID and changes what is given', async () => {
    const made = (await sandbox.run(['service-accounts', 'create', '--instance', '--username', 'svc-rename', '-o', 'json'])).json();
    const renamed = await sandbox.run(['service-accounts', 'update', 'svc-rename', '--instance', '--name', 'Renamed', '-o', 'json']);
    expect(renamed.json()).toMatchObject({ id: made.id, name: 'Renamed' });
    const moved = await sandbox.run(['service-accounts', 'update', String(made.id), '--instance', '--username', 'svc-renamed', '-o', 'json']);
    expect(moved.json()).toMatchObject({ id: made.id, username: 'svc-renamed' });
    const elsewhere = await sandbox.run(['service-accounts', 'update', 'svc-renamed', '--group', 'acme', '--name', 'x']);
    expect(elsewhere.code).toBe(5);
    expect(elsewhere.stderr).toContain('error: no service account "svc-renamed" of group acme');
    expect(elsewhere.stderr).toContain('forgectl service-accounts list --group acme');
  });
});

describe('service-accounts delete', () => {
  it('off a terminal needs --yes, sending nothing without it; names the tokens that die with the account', async () => {
    const account = (await sandbox.run(['service-accounts', 'create', '--instance', '--username', 'svc-doomed', '-o', 'json'])).json();
    const token = (await sandbox.run(['tokens', 'create', '--service-account', 'svc-doomed', '--name', 'cron', '--scopes', 'api', '--expires-in', '30d', '-o', 'json'])).json();
    sandbox.clearRequests();
    const refused = await sandbox.run(['service-accounts', 'delete', 'svc-doomed', '--instance']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Delete service account svc-doomed of the instance and revoke its tokens?');
    expect(refused.stderr).toContain('pass --yes');
    expect(sandbox.requests()).toEqual([]);

    const deleted = await sandbox.run(['service-accounts', 'delete', 'svc-doomed', '--instance', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain(`Deleted service account svc-doomed (id ${account.id}) of the instance; revoked with it: token "cron" (id ${token.id}, expires ${token.expires_at})`);
    expect(sandbox.requests().at(-1)).toMatchObject({ method: 'DELETE', path: `/api/v4/users/${account.id}` });
    expect(users(sandbox.db).some((u) => u.id === account.id)).toBe(false);
    expect(tokens(sandbox.db).some((t) => t.id === token.id)).toBe(false);
    // Its token is refused from then on.
    expect((await sandbox.call('GET', '/personal_access_tokens/self', undefined, token.token)).status).toBe(401);
  });

  it('deletes a group\'s account with --hard-delete, which the service also takes for the groups it alone owns', async () => {
    const account = (await sandbox.run(['service-accounts', 'create', '--group', 'acme', '--username', 'acme-doomed', '-o', 'json'])).json();
    const deleted = await sandbox.run(['service-accounts', 'delete', 'acme-doomed', '--group', 'acme', '--hard-delete', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('it had no active token');
    expect(sandbox.requests().at(-1)).toMatchObject({ method: 'DELETE', path: `/api/v4/groups/acme/service_accounts/${account.id}?hard_delete=true` });
  });

  it('--hard-delete names the groups it takes with the account (those it alone owns) before asking; n sends nothing', async () => {
    const account = (await sandbox.run(['service-accounts', 'create', '--instance', '--username', 'svc-builder', '-o', 'json'])).json();
    const token = (await sandbox.call('POST', `/users/${account.id}/personal_access_tokens`, { name: 'build', scopes: ['api'], expires_at: new Date(Date.now() + 100 * 86_400_000).toISOString().slice(0, 10) })).body.token;
    expect((await sandbox.call('POST', '/groups', { name: 'Built', path: 'built-by-svc' }, token)).status).toBe(201);
    sandbox.clearRequests();
    const asked = await sandbox.run(['service-accounts', 'delete', 'svc-builder', '--instance', '--hard-delete'], { tty: true, input: 'n\n' });
    expect(asked.code, asked.stderr).not.toBe(0);
    expect(stripVTControlCharacters(asked.stderr).replace(/\s+/g, ' ')).toContain(`Delete service account svc-builder (id ${account.id}) of the instance and what it made, and the groups it alone owns: built-by-svc (with their projects)?`);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await sandbox.call('GET', '/groups/built-by-svc')).status).toBe(200);
  });

  it('names no account it cannot find (exit 5), and deletes nothing', async () => {
    sandbox.clearRequests();
    const missing = await sandbox.run(['service-accounts', 'delete', 'nobody-here', '--instance', '--yes']);
    expect(missing.code).toBe(5);
    expect(sandbox.requests().some((r) => r.method === 'DELETE')).toBe(false);
  });
});

describe('the agent interface (the access toolset)', () => {
  it('offers list as a read, create and update as writes, delete as destructive; none of them without --allow-write', async () => {
    const tools = async (argv: string[]) => (await sandbox.run(['mcp', 'tools', '--toolsets', 'access', ...argv, '-o', 'json'])).json() as Array<{ name: string; read_only: boolean; destructive: boolean }>;
    const ours = (list: Array<{ name: string }>) => list.filter((tool) => tool.name.startsWith('service_accounts_'));
    expect(ours(await tools(['--allow-write', 'access']))).toEqual([
      expect.objectContaining({ name: 'service_accounts_list', read_only: true, destructive: false }),
      expect.objectContaining({ name: 'service_accounts_create', read_only: false, destructive: false }),
      expect.objectContaining({ name: 'service_accounts_update', read_only: false, destructive: false }),
      expect.objectContaining({ name: 'service_accounts_delete', read_only: false, destructive: true }),
    ]);
    expect(ours(await tools([])).map((tool) => tool.name)).toEqual(['service_accounts_list']);
  });
});
