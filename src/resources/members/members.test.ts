import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { users } from '../../sandbox/model.js';

const sandbox = useTestSandbox();

/** Creates a record as root (answered 201); its id. */
async function made(path: string, body: Record<string, unknown>): Promise<{ id: number }> {
  const answer = await sandbox.call('POST', path, body);
  expect(answer.status, answer.text).toBe(201);
  return answer.body as { id: number };
}

const usernames = (records: Array<{ username: string }>): string[] => records.map((r) => r.username).sort();

describe('members', () => {
  beforeAll(async () => {
    for (const username of ['user1', 'user2', 'user3', 'user4']) {
      const created = await sandbox.call('POST', '/users', { username, name: username, email: `${username}@example.com`, password: 'a-long-password-1' });
      expect(created.status).toBe(201);
    }
  });

  it('lists direct members, and with --inherited everyone with access through the groups above (highest level)', async () => {
    const direct = await sandbox.run(['members', 'list', '--project', 'acme/web', '-o', 'json']);
    expect(direct.code).toBe(0);
    expect(usernames(direct.json())).toEqual(['omar']);
    const all = await sandbox.run(['members', 'list', '--project', 'acme/api', '--inherited', '-o', 'json']);
    const records = all.json() as Array<{ username: string; access_level: number }>;
    expect(usernames(records)).toEqual(expect.arrayContaining(['alice', 'bob', 'priya', 'root', 'service_account_deploy']));
    // priya is a Guest in acme and a Maintainer of acme/api: the higher one shows.
    expect(records.find((r) => r.username === 'priya')!.access_level).toBe(40);
    expect(sandbox.requests().at(-1)!.path).toContain('/members/all');
    const table = await sandbox.run(['members', 'list', '--group', 'acme']);
    expect(table.stdout).toMatch(/\talice\tAlice Maintainer\tmaintainer\t/);
  });

  it('gets a member by username or id', async () => {
    const byName = await sandbox.run(['members', 'get', 'alice', '--group', 'acme', '-o', 'json']);
    expect(byName.json()).toMatchObject({ username: 'alice', access_level: 40 });
    const byId = await sandbox.run(['members', 'get', String(byName.json().id), '--group', 'acme', '-o', 'json']);
    expect(byId.json().username).toBe('alice');
    expect((await sandbox.run(['members', 'get', 'alice', '--project', 'acme/web'])).code).toBe(5);
    expect((await sandbox.run(['members', 'get', 'alice', '--project', 'acme/web', '--inherited', '-o', 'json'])).json().access_level).toBe(40);
    // A user named as the command's subject that does not exist: not found (5), as users get says, whatever the verb.
    for (const argv of [['get', 'nobody-here'], ['add', 'nobody-here', '--access-level', 'developer'], ['remove', 'alice,nobody-here', '--yes']]) {
      const unknown = await sandbox.run(['members', ...argv, '--group', 'acme']);
      expect(unknown.code, argv.join(' ')).toBe(5);
      expect(unknown.stderr).toMatch(/^error: no user named "nobody-here"\nhint: nothing was changed/);
    }
  });

  it('adds several users at once by name and id, with an access level by name and an expiry', async () => {
    const user = (await sandbox.run(['users', 'get', 'user1', '-o', 'json'])).json() as { id: number };
    const added = await sandbox.run(['members', 'add', `omar,${user.id}`, '--project', 'acme/api', '--access-level', 'developer', '--expires-at', '2031-01-31', '-o', 'json']);
    expect(added.code).toBe(0);
    expect(added.json()).toMatchObject([{ username: 'omar', access_level: 30, expires_at: '2031-01-31' }, { username: 'user1', access_level: 30 }]);
    expect(added.stderr).toContain('Added omar (developer) to project acme/api');
    // Again, as a re-run of a bulk add: omar is a member as asked already (exit 0, nothing sent for him), user3 is added.
    const again = await sandbox.run(['members', 'add', 'omar,user3', '--project', 'acme/api', '--access-level', 'developer', '--expires-at', '2031-01-31']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('omar (developer) is already a member of project acme/api as asked: nothing sent');
    expect(again.stderr).toContain('Added user3 (developer) to project acme/api');
    // Differently (no expiry asked, a level above): reported with what differs, the others still added, exit 9.
    const differs = await sandbox.run(['members', 'add', 'omar,user2', '--project', 'acme/api', '--access-level', 'maintainer']);
    expect(differs.code).toBe(9);
    expect(differs.stderr).toContain('omar: Member already exists');
    expect(differs.stderr).toContain('omar is a member of project acme/api already, differently: access level developer, not maintainer; expires 2031-01-31, not never');
  });

  it('one user that cannot be added is an error with its exit code, the reason and what to do', async () => {
    sandbox.clearRequests();
    const member = await sandbox.run(['members', 'add', 'omar', '--project', 'acme/api', '--access-level', 'guest']);
    expect(member.code).toBe(6);
    expect(member.stderr).toBe(
      'error: Member already exists (POST /projects/acme%2Fapi/members → 409)\n' +
        'hint: omar is a member of project acme/api already, differently: access level developer, not guest; expires 2031-01-31, not never; change it with: forgectl members update omar --project acme/api --access-level guest\n',
    );
    const json = await sandbox.run(['members', 'add', 'omar', '--project', 'acme/api', '--access-level', 'guest', '-o', 'json']);
    expect(json.stdout).toBe('');
    expect(json.stderr).toContain('{"error":{"status":409,"message":"Member already exists","method":"POST","path":"/projects/acme%2Fapi/members"');
    const owner = await sandbox.run(['members', 'add', 'user4', '--project', 'acme/api', '--access-level', 'owner'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('maintainer') } });
    expect(owner.code).toBe(4);
    expect(owner.stderr).toMatch(/^error: 403 Forbidden \(POST \/projects\/acme%2Fapi\/members → 403\)\nhint: only an Owner adds owners\n$/);
    // A past expiry is refused before anything is sent.
    sandbox.clearRequests();
    const past = await sandbox.run(['members', 'add', 'user4', '--project', 'acme/api', '--access-level', 'guest', '--expires-at', '2020-01-01']);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/^error: --expires-at 2020-01-01 is in the past\nhint: give today \(\d{4}-\d{2}-\d{2}\) or a later day\n$/);
    expect(sandbox.requests()).toEqual([]);
  });

  it("the group's only owner is not removed: said before anything is sent (exit 4); a removal prints no empty list", async () => {
    sandbox.clearRequests();
    const root = await sandbox.run(['members', 'remove', 'root', '--group', 'acme', '--yes']);
    expect(root.code).toBe(4);
    expect(root.stderr).toBe('error: root is the only owner of group acme, and a group keeps at least one owner; nothing was sent\nhint: make another member an owner first: forgectl members update USER --group acme --access-level owner\n');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await sandbox.run(['members', 'add', 'user4', '--project', 'acme/api', '--access-level', 'developer'])).code).toBe(0);
    const removed = await sandbox.run(['members', 'remove', 'user4', '--project', 'acme/api', '--yes'], { tty: true });
    expect(removed.code).toBe(0);
    expect(removed.stderr).toContain('Removed user4 (developer) from project acme/api');
    expect(removed.stdout).toBe('');
  });

  it('an owner nobody can act as (an access token\'s bot) is not another owner: the last person stays, and the bot is named', async () => {
    const vault = await made('/groups', { name: 'Vault', path: 'vault-owners' });
    await made(`/groups/${vault.id}/members`, { user_id: users(sandbox.db).find((u) => u.username === 'alice')!.id, access_level: 50 });
    const expires = new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10);
    const token = (await made(`/groups/${vault.id}/access_tokens`, { name: 'ci', scopes: ['api'], access_level: 50, expires_at: expires })) as { id: number; user_id?: number };
    const bot = (await sandbox.call('GET', `/users/${token.user_id}`)).body as { username: string };
    expect((await sandbox.run(['members', 'remove', 'root', '--group', 'vault-owners', '--yes'])).code).toBe(0);
    sandbox.clearRequests();
    const last = await sandbox.run(['members', 'remove', 'alice', '--group', 'vault-owners', '--yes']);
    expect(last.code).toBe(4);
    expect(last.stderr.split('\n')[0]).toBe(`error: alice is the only owner of group vault-owners (nobody can act as the other owner, ${bot.username}: blocked, expired or an access token's bot), and a group keeps at least one owner; nothing was sent`);
    // Nor is she demoted: the group would have no owner anyone can act as.
    const demoted = await sandbox.run(['members', 'update', 'alice', '--group', 'vault-owners', '--access-level', 'maintainer']);
    expect([demoted.code, demoted.stderr.split('\n')[0]]).toEqual([4, last.stderr.split('\n')[0]]);
    // Nor given an end: the group would lose her on that day.
    const ending = await sandbox.run(['members', 'update', 'alice', '--group', 'vault-owners', '--expires-at', expires]);
    expect([ending.code, ending.stderr.split('\n')[0]]).toEqual([4, last.stderr.split('\n')[0]]);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    // Another owner first, and she can go down a level.
    expect((await sandbox.run(['members', 'add', 'bob', '--group', 'vault-owners', '--access-level', 'owner'])).code).toBe(0);
    expect((await sandbox.run(['members', 'update', 'alice', '--group', 'vault-owners', '--access-level', 'maintainer'])).code).toBe(0);
  });

  it('refuses a direct level below the inherited one, as the service does', async () => {
    const result = await sandbox.run(['members', 'add', 'alice', '--project', 'acme/web', '--access-level', 'reporter']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('should be greater than or equal to Maintainer inherited membership from group Acme');
  });

  it('updates the access level and the expiry, keeping the level when only the expiry changes', async () => {
    expect((await sandbox.run(['members', 'add', 'user2', '--group', 'acme', '--access-level', 'guest'])).code).toBe(0);
    const up = await sandbox.run(['members', 'update', 'user2', '--group', 'acme', '--access-level', 'maintainer', '-o', 'json']);
    expect(up.json()).toMatchObject([{ username: 'user2', access_level: 40 }]);
    const expiry = await sandbox.run(['members', 'update', 'user2', '--group', 'acme', '--expires-at', '2032-02-02', '-o', 'json']);
    expect(expiry.json()).toMatchObject([{ access_level: 40, expires_at: '2032-02-02' }]);
    const cleared = await sandbox.run(['members', 'update', 'user2', '--group', 'acme', '--no-expires-at', '-o', 'json']);
    expect(cleared.json()).toMatchObject([{ access_level: 40, expires_at: null }]);
    expect((await sandbox.run(['members', 'update', 'user2', '--group', 'acme'])).code).toBe(2);
  });

  it('says who is not a direct member when updating one whose access comes from a group above, and what to do', async () => {
    // alice is a Maintainer of acme: she reaches acme/web through it, and has no membership of it to change.
    const level = await sandbox.run(['members', 'update', 'alice', '--project', 'acme/web', '--access-level', 'owner']);
    expect(level.code).toBe(5);
    expect(level.stderr).toMatch(/^error: alice is not a direct member of project acme\/web \(PUT \/projects\/acme%2Fweb\/members\/\d+ → 404\)\n/);
    expect(level.stderr).toContain('hint: access inherited from a group above is changed there, or given here with: forgectl members add alice --project acme/web --access-level owner\n');
    const expiry = await sandbox.run(['members', 'update', 'alice', '--project', 'acme/web', '--expires-at', '2032-02-02']);
    expect(expiry.code).toBe(5);
    expect(expiry.stderr).toContain('error: alice is not a direct member of project acme/web');
    expect(expiry.stderr).toContain('forgectl members add alice --project acme/web --access-level LEVEL\n');
  });

  it('says who is not a direct member when removing one whose access comes from a group above, and names a place that does not exist as such', async () => {
    sandbox.clearRequests();
    const inherited = await sandbox.run(['members', 'remove', 'alice', '--project', 'acme/web', '--yes']);
    expect(inherited.code).toBe(5);
    expect(inherited.stderr).toMatch(/^error: alice is not a direct member of project acme\/web \(GET \/projects\/acme%2Fweb\/members\/\d+ → 404\)\nhint: access inherited from a group above is removed there\n/);
    const nowhere = await sandbox.run(['members', 'remove', 'alice', '--group', 'nosuchgroup', '--yes']);
    expect(nowhere.code).toBe(5);
    expect(nowhere.stderr).toMatch(/^error: 404 Group Not Found/);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('removes only after naming who goes and asking; --yes off a terminal', async () => {
    expect((await sandbox.run(['members', 'add', 'user3', '--group', 'acme', '--access-level', 'reporter'])).code).toBe(0);
    sandbox.clearRequests();
    const refused = await sandbox.run(['members', 'remove', 'user3', '--group', 'acme']);
    expect(refused.code).toBe(2);
    expect(sandbox.requests().filter((r) => r.method === 'DELETE')).toEqual([]);
    const removed = await sandbox.run(['members', 'remove', 'user3', '--group', 'acme', '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.stderr).toContain('Removed user3 (reporter) from group acme');
    expect((await sandbox.run(['members', 'remove', 'user3', '--group', 'acme', '--yes'])).code).toBe(5);
  });

  it("removing the bot user of a project's access token says, in the question and the dry run, that it revokes that token; the sandbox revokes it", async () => {
    const token = (await sandbox.call('POST', '/projects/acme%2Fapi/access_tokens', { name: 'ci-deployer', scopes: ['api'], access_level: 30, expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10) })).body as { id: number; user_id: number };
    const bot = (await sandbox.call('GET', `/users/${token.user_id}`)).body as { username: string };
    const says = `${bot.username} is the bot user of access token 'ci-deployer'; removing it revokes the token.`;
    const question = await sandbox.run(['members', 'remove', bot.username, '--project', 'acme/api']);
    expect(question.code).toBe(2);
    expect(question.stderr).toContain(`error: confirmation needed: Remove ${bot.username} (developer) from project acme/api? ${says}`);
    const dry = await sandbox.run(['members', 'remove', bot.username, '--project', 'acme/api', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(says);
    expect((await sandbox.call('GET', `/projects/acme%2Fapi/access_tokens/${token.id}`)).body).toMatchObject({ active: true, revoked: false });
    const removed = await sandbox.run(['members', 'remove', bot.username, '--project', 'acme/api', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await sandbox.call('GET', `/projects/acme%2Fapi/access_tokens/${token.id}`)).body).toMatchObject({ revoked: true });
    // Nobody else's removal reads the tokens.
    sandbox.clearRequests();
    expect((await sandbox.run(['members', 'remove', 'omar', '--project', 'acme/web', '--dry-run'])).stderr).not.toContain('bot user');
    expect(sandbox.requests().filter((r) => r.path.includes('access_tokens'))).toEqual([]);
  });

  it('removing a group member names the memberships of its subgroups and projects that go with it, before the first write; --skip-subresources keeps them', async () => {
    const acme = (await sandbox.call('GET', '/groups/acme')).body.id as number;
    const platform = await made('/groups', { name: 'Platform', path: 'platform', parent_id: acme });
    const cli = await made('/projects', { name: 'cli', path: 'cli', namespace_id: platform.id });
    const docs = await made('/projects', { name: 'docs', path: 'docs', namespace_id: acme });
    const elsewhere = await made('/groups', { name: 'Elsewhere', path: 'elsewhere' });
    const leaver = await made('/users', { username: 'leaver', name: 'Leaver', email: 'leaver@example.com', password: 'a-long-password-1' });
    const join = async () => {
      for (const path of ['/groups/acme', `/groups/${platform.id}`, `/projects/${cli.id}`, `/projects/${docs.id}`, `/groups/${elsewhere.id}`]) {
        if ((await sandbox.call('GET', `${path}/members/${leaver.id}`)).status === 404) await made(`${path}/members`, { user_id: leaver.id, access_level: 30 });
      }
    };
    const left = async () => ((await sandbox.call('GET', `/users/${leaver.id}/memberships`)).body as Array<{ source_name: string }>).map((m) => m.source_name).sort();
    await join();

    sandbox.clearRequests();
    const asked = await sandbox.run(['members', 'remove', 'leaver', '--group', 'acme']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain(
      "error: confirmation needed: Remove leaver (developer) from group acme? It also removes leaver's direct memberships of 1 subgroup and 2 projects (acme/platform, acme/docs, acme/platform/cli) below it; --skip-subresources keeps them.",
    );
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    const removed = await sandbox.run(['members', 'remove', 'leaver', '--group', 'acme', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain('Removed leaver (developer) from group acme, and their direct memberships of 1 subgroup and 2 projects below it');
    expect(await left()).toEqual(['Elsewhere']);

    await join();
    sandbox.clearRequests();
    const kept = await sandbox.run(['members', 'remove', 'leaver', '--group', 'acme', '--skip-subresources', '--unassign-issuables'], { tty: true, input: 'y\n' });
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).not.toContain('It also removes');
    expect(kept.stderr).toContain('Removed leaver (developer) from group acme\n');
    expect(sandbox.requests().filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([`/api/v4/groups/acme/members/${leaver.id}?skip_subresources=true&unassign_issuables=true`]);
    expect(await left()).toEqual(['Elsewhere', 'cli', 'docs', 'Platform'].sort());

    sandbox.clearRequests();
    const project = await sandbox.run(['members', 'remove', 'leaver', '--project', `acme/docs`, '--skip-subresources', '--yes']);
    expect(project.code).toBe(2);
    expect(project.stderr).toBe('error: --skip-subresources is for --group: a project has no subgroups or projects below it\n');
    expect(sandbox.requests()).toEqual([]);
  });

  it("a removal reads the user's memberships in one list (an administrator's, anywhere; an Owner's, in the group's hierarchy), not the members of each place below; both name the same", async () => {
    const acme = (await sandbox.call('GET', '/groups/acme')).body.id as number;
    const tools = await made('/groups', { name: 'Tools', path: 'tools', parent_id: acme });
    const deep = await made('/groups', { name: 'Deep', path: 'deep', parent_id: tools.id });
    const lint = await made('/projects', { name: 'lint', path: 'lint', namespace_id: deep.id });
    const outside = await made('/projects', { name: 'outside', path: 'outside', namespace_id: (await made('/groups', { name: 'Other', path: 'other' })).id });
    const mover = await made('/users', { username: 'mover', name: 'Mover', email: 'mover@example.com', password: 'a-long-password-1' });
    for (const path of ['/groups/acme', `/groups/${deep.id}`, `/projects/${lint.id}`, '/projects/acme%2Fweb', `/projects/${outside.id}`]) await made(`${path}/members`, { user_id: mover.id, access_level: 20 });
    const question =
      "error: confirmation needed: Remove mover (reporter) from group acme? It also removes mover's direct memberships of 1 subgroup and 2 projects (acme/tools/deep, acme/tools/deep/lint, acme/web) below it; --skip-subresources keeps them.";
    const memberLists = () => sandbox.requests().filter((r) => /^\/api\/v4\/(groups|projects)\/[^/]+\/members(\?|$)/.test(r.path));

    sandbox.clearRequests();
    const admin = await sandbox.run(['members', 'remove', 'mover', '--group', 'acme']);
    expect(admin.code).toBe(2);
    expect(admin.stderr).toContain(question);
    expect(sandbox.requests().filter((r) => r.path.startsWith(`/api/v4/users/${mover.id}/memberships`))).toHaveLength(1);
    expect(memberLists()).toEqual([]);

    // An Owner may not read a user's memberships everywhere, but may read those in the hierarchy of a top-level group.
    const asOwner = { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } };
    sandbox.clearRequests();
    const owner = await sandbox.run(['members', 'remove', 'mover', '--group', 'acme'], asOwner);
    expect(owner.code).toBe(2);
    expect(owner.stderr).toBe(admin.stderr);
    // Six requests, however many places acme holds: the user, their membership, the memberships everywhere (refused),
    // those in acme's hierarchy, and the subgroups and projects below acme (to name them).
    expect(sandbox.requests().map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual([
      'GET /api/v4/users 200',
      `GET /api/v4/groups/acme/members/${mover.id} 200`,
      `GET /api/v4/users/${mover.id}/memberships 403`,
      `GET /api/v4/groups/acme/billable_members/${mover.id}/memberships 200`,
      'GET /api/v4/groups/acme/descendant_groups 200',
      'GET /api/v4/groups/acme/projects 200',
    ]);

    // Of a subgroup, the service does not say (400): the members of each subgroup and project below it, one list each.
    sandbox.clearRequests();
    const below = await sandbox.run(['members', 'remove', 'mover', '--group', 'acme/tools/deep'], asOwner);
    expect(below.code).toBe(2);
    expect(below.stderr).toContain("It also removes mover's direct memberships of 1 project (acme/tools/deep/lint) below it");
    const placesBelow = async (group: string) => (await sandbox.call('GET', `/groups/${group}/descendant_groups?per_page=100`)).body.length + (await sandbox.call('GET', `/groups/${group}/projects?include_subgroups=true&per_page=100`)).body.length;
    expect(memberLists()).toHaveLength(await placesBelow('acme%2Ftools%2Fdeep'));
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);

    // Nor of a user it does not bill (a bot: 404): the member lists again, the question the administrator's.
    const bot = users(sandbox.db).find((u) => u.username === 'service_account_deploy')!;
    const botQuestion = (await sandbox.run(['members', 'remove', String(bot.id), '--group', 'acme'])).stderr;
    sandbox.clearRequests();
    const ofBot = await sandbox.run(['members', 'remove', String(bot.id), '--group', 'acme'], asOwner);
    expect([ofBot.code, ofBot.stderr]).toEqual([2, botQuestion]);
    expect(sandbox.requests().find((r) => r.path.includes('/billable_members/'))?.status).toBe(404);
    expect(memberLists()).toHaveLength(await placesBelow('acme'));
  });

  it('checks its input before sending anything', async () => {
    sandbox.clearRequests();
    expect((await sandbox.run(['members', 'add', 'omar', '--project', 'acme/web', '--access-level', 'boss'])).code).toBe(2);
    expect((await sandbox.run(['members', 'add', 'omar', '--project', 'acme/web', '--access-level', 'guest', '--expires-at', '31.12.2030'])).code).toBe(2);
    expect((await sandbox.run(['members', 'list', '--project', 'acme/web', '--group', 'acme'])).code).toBe(2);
    expect((await sandbox.run(['members', 'list'])).code).toBe(2);
    expect((await sandbox.run(['members', 'list', '--group', 'acme', '--concurrency', '2'])).code).toBe(2);
    expect(sandbox.requests()).toEqual([]);
  });

  it('--dry-run prints the request of each of several users and sends none', async () => {
    const ids = Object.fromEntries(await Promise.all(['alice', 'bob'].map(async (name) => [name, ((await sandbox.run(['users', 'get', name, '-o', 'json'])).json() as { id: number }).id])));
    sandbox.clearRequests();
    const add = await sandbox.run(['members', 'add', 'alice,bob', '--project', 'acme/web', '--access-level', 'guest', '--dry-run']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout.match(/^POST .*\/projects\/acme%2Fweb\/members$/gm)).toHaveLength(2);
    expect(add.stdout).toContain(`"user_id": ${ids.bob}`);
    const remove = await sandbox.run(['members', 'remove', 'alice', 'bob', '--group', 'acme', '--skip-subresources', '--yes', '--dry-run']);
    expect(remove.code, remove.stderr).toBe(0);
    expect(remove.stdout.split('\n').filter((line) => line.startsWith('DELETE'))).toEqual([`DELETE ${sandbox.url}/groups/acme/members/${ids.alice}?skip_subresources=true`, `DELETE ${sandbox.url}/groups/acme/members/${ids.bob}?skip_subresources=true`]);
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it("a fleet's one question claims only what was read: the asking project's members, the others named as not read yet", async () => {
    expect((await sandbox.run(['members', 'add', 'user3', '--project', 'acme/api', '--access-level', 'developer'])).code).toBe(0);
    expect((await sandbox.run(['members', 'add', 'user3', '--project', 'acme/web', '--access-level', 'reporter'])).code).toBe(0);
    const file = join(tmpdir(), `members-question-${process.pid}.txt`);
    writeFileSync(file, 'acme/api\nacme/nope\nacme/web\n');
    sandbox.clearRequests();
    const asked = await sandbox.run(['members', 'remove', 'user3', '--projects-file', file, '--concurrency', '1']);
    expect(asked.code).toBe(2);
    // user3 is a developer in acme/api only (a reporter in acme/web, and acme/nope does not exist): said of acme/api alone.
    expect(asked.stderr).toContain('confirmation needed: Remove user3 (developer) from project acme/api, and run the same command in 2 more projects (acme/nope, acme/web), not read yet?');
    expect(sandbox.requests().filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('removing across a fleet goes past the projects the user is not a member of: nothing to remove there, exit 0', async () => {
    await made('/users', { username: 'user5', name: 'User Five', email: 'user5@example.com', password: 'long-enough-pw-1' });
    expect((await sandbox.run(['members', 'add', 'user5', '--project', 'acme/web', '--access-level', 'reporter'])).code).toBe(0);
    const file = join(tmpdir(), `members-cleanup-${process.pid}.txt`);
    writeFileSync(file, 'acme/api\nacme/web\n');
    const result = await sandbox.run(['members', 'remove', 'user5', '--projects-file', file, '--concurrency', '1', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('acme/api: user5 is not a direct member of project acme/api: nothing to remove');
    expect(result.stderr).toContain('Removed user5 (reporter) from project acme/web');
    expect((await sandbox.call('GET', `/projects/acme%2Fweb/members/${users(sandbox.db).find((u) => u.username === 'user5')!.id}`)).status).toBe(404);
    // One project, named by --project, still says the user is no member there (exit 5).
    expect((await sandbox.run(['members', 'remove', 'user5', '--project', 'acme/api', '--yes'])).code).toBe(5);
  });

  it('works on every project of a projects file (the fleet selector)', async () => {
    const file = join(tmpdir(), `members-${process.pid}.txt`);
    writeFileSync(file, 'acme/api\nacme/web\n');
    const result = await sandbox.run(['members', 'add', 'user4', '--projects-file', file, '--access-level', 'reporter', '-o', 'json']);
    expect(result.code).toBe(0);
    const rows = result.json() as Array<{ project: string; outcome: string; username: string }>;
    expect(rows.map((r) => [r.project, r.username])).toEqual([['acme/api', 'user4'], ['acme/web', 'user4']]);
    const listed = await sandbox.run(['members', 'list', '--projects-file', file, '--query', 'user4', '-o', 'json']);
    expect((listed.json() as Array<{ project: string }>).map((r) => r.project)).toEqual(['acme/api', 'acme/web']);
  });

  // After the tests of acme's only owner: it gives acme a second Owner.
  it("a group Owner who is not an administrator adds a service account by its username", async () => {
    const owner = { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } };
    const added = await sandbox.run(['members', 'add', 'service_account_deploy', '--project', 'acme/web', '--access-level', 'developer', '-o', 'json'], owner);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json()).toMatchObject([{ username: 'service_account_deploy', access_level: 30 }]);
  });
});
