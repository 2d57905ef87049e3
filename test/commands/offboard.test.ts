/**
 * `users offboard` over real HTTP against the sandbox: a user who is a member of a group, of a subgroup's project and
 * of a group a project is shared with, with a personal and an impersonation token, an SSH and a GPG key. The run
 * refuses without confirmation off a terminal, then leaves the user blocked with no membership, token or key; a
 * second run has nothing to do; a group the user alone owns is named and handed over with --transfer-to.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/sandbox/model.js';
import { useTestSandbox } from '../helpers/cli.js';
import { departingUser, EXPIRES, leftOf, made, OFFBOARDED } from '../helpers/offboarding.js';

const sandbox = useTestSandbox();

const writes = () => sandbox.requests().filter((r) => r.method !== 'GET' && r.method !== 'HEAD');

describe('users offboard', () => {
  let leaver: { id: number };
  beforeAll(async () => {
    leaver = await departingUser(sandbox, 'leaver');
  });

  it('reads everything and shows the plan; off a terminal without --yes it ends with exit 2 and sends nothing', async () => {
    sandbox.clearRequests();
    await made(sandbox, `/projects/user/${leaver.id}`, { name: 'dotfiles' });
    sandbox.clearRequests();
    const result = await sandbox.run(['users', 'offboard', 'leaver']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('Stays: 1 personal project (leaver/dotfiles), with the account; forgectl users delete removes them');
    expect(writes()).toEqual([]);
    expect(result.stderr).toContain('Offboarding leaver (Leaving leaver), active:');
    for (const line of ['block leaver', 'remove-membership group ops-leaver — developer', 'remove-membership project ops-leaver/sre/runbooks — maintainer', 'remove-membership group contractors-leaver — reporter', 'revoke-token personal access token laptop', 'revoke-impersonation-token impersonation token support-session', 'delete-ssh-key SSH key leaver@laptop', 'delete-gpg-key GPG key']) {
      expect(result.stderr).toContain(line);
    }
    expect(result.stderr).toMatch(/error: confirmation needed: Offboard leaver: block, 3 memberships removed, 2 tokens revoked, 2 keys deleted\?/);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('hint: pass --yes to confirm without a terminal');
    expect((await leftOf(sandbox, leaver.id)).state).toBe('active');
  });

  it('--plan-only prints the plan as records and exits 9; --dry-run prints it and exits 0; neither sends anything', async () => {
    sandbox.clearRequests();
    const plan = await sandbox.run(['users', 'offboard', 'leaver', '--plan-only', '-o', 'json']);
    expect(plan.code, plan.stderr).toBe(9);
    const rows = plan.json<Array<{ action: string; status: string }>>();
    expect(rows.map((r) => r.action)).toEqual(['block', 'remove-membership', 'remove-membership', 'remove-membership', 'revoke-token', 'revoke-impersonation-token', 'delete-ssh-key', 'delete-gpg-key']);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['planned']));
    const dry = await sandbox.run(['users', 'offboard', 'leaver', '--dry-run', '-o', 'json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toEqual(rows);
    // At a terminal the table is the plan: its steps are not listed on stderr as well.
    for (const flag of ['--plan-only', '--dry-run']) {
      const shown = await sandbox.run(['users', 'offboard', 'leaver', flag], { tty: true });
      expect(stripVTControlCharacters(shown.stdout)).toMatch(/^action +target +status +detail/m);
      expect(shown.stdout).toContain('remove-membership');
      expect(shown.stderr).toContain('Offboarding leaver (Leaving leaver), active:\n');
      expect(shown.stderr, flag).not.toContain('remove-membership');
    }
    expect(writes()).toEqual([]);
  });

  it('with --yes leaves the user blocked, with no membership and no active token or key, and says what it did', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['users', 'offboard', 'leaver', '--yes', '-o', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.json<Array<{ action: string; status: string; detail: string }>>();
    expect(rows.map((r) => r.status)).toEqual(Array(8).fill('done'));
    // Once done, the row says what the account was, not what it is "now".
    expect(rows[0]).toMatchObject({ action: 'block', detail: 'block the account: no sign-in, no Git, no API (was active)' });
    expect(result.stderr).toContain('offboarded leaver: block, 3 memberships removed, 2 tokens revoked, 2 keys deleted');
    expect(await leftOf(sandbox, leaver.id)).toEqual(OFFBOARDED);
    // The project shared with one of the groups is out of reach too.
    expect((await sandbox.call('GET', `/projects/acme%2Fweb/members/all/${leaver.id}`)).status).toBe(404);
    // The instance recorded each step: the block, and each membership removed, as the administrator.
    const events = (await sandbox.call('GET', '/audit_events?per_page=100')).body as Array<{ event_name: string; entity_type: string; details: { author_name: string; target_details: string } }>;
    const about = events.filter((e) => e.details.target_details === 'leaver' || e.details.target_details?.includes('leaver@'));
    expect(about.map((e) => `${e.event_name} ${e.entity_type} ${e.details.author_name}`).sort()).toEqual(expect.arrayContaining([
      'user_blocked User Administrator', 'member_destroyed Group Administrator', 'member_destroyed Group Administrator', 'member_destroyed Project Administrator',
    ]));
  });

  it('a second run has nothing to do: exit 0, nothing sent', async () => {
    sandbox.clearRequests();
    const result = await sandbox.run(['users', 'offboard', 'leaver']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('nothing to do');
    // The plan said it: no empty table after it.
    expect(result.stderr).not.toContain('no results');
    expect(result.stdout).toBe('');
    expect(writes()).toEqual([]);
    // At a terminal too (where notes are shown).
    for (const args of [[], ['--plan-only']]) {
      const atTerminal = await sandbox.run(['users', 'offboard', 'leaver', ...args], { tty: true });
      expect(atTerminal.code, atTerminal.stderr).toBe(0);
      expect(atTerminal.stderr).toContain('nothing to change');
      expect(atTerminal.stderr).not.toContain('no results');
    }
    expect((await sandbox.run(['users', 'offboard', 'leaver', '--plan-only', '-o', 'json'])).stdout.trim()).toBe('[]');
  });

  it('a group the user alone owns is named with its fix; the rest is done, and exit 9 until --transfer-to hands it over', async () => {
    const owner = await made(sandbox, '/users', { username: 'soleowner', name: 'Sole Owner', email: 'sole@example.com', password: 'long-enough-pw-1' });
    const token = (await made(sandbox, `/users/${owner.id}/personal_access_tokens`, { name: 'own', scopes: ['api'], expires_at: EXPIRES })).token;
    const lab = (await sandbox.call('POST', '/groups', { name: 'Lab', path: 'lab' }, token)).body;
    // A subgroup the user made owns too; whoever takes over lab inherits it.
    expect((await sandbox.call('POST', '/groups', { name: 'Inner', path: 'inner', parent_id: lab.id }, token)).status).toBe(201);
    await made(sandbox, '/projects/acme%2Fapi/members', { user_id: owner.id, access_level: 30 });
    const first = await sandbox.run(['users', 'offboard', 'soleowner', '--yes']);
    expect(first.code, first.stderr).toBe(9);
    expect(first.stderr).toContain('Cannot be done:\n  group lab: soleowner is its only owner: hand it over with --transfer-to USER, or add an owner first (forgectl members add USER --group lab --access-level owner)');
    expect(first.stderr).toContain('attention: soleowner still owns lab, lab/inner alone; hand them over with --transfer-to USER');
    expect(first.stderr).toContain('  group lab/inner: soleowner is its only owner');
    expect((await leftOf(sandbox, owner.id)).memberships.map((m: { source_name: string }) => m.source_name)).toEqual(['Lab', 'Inner']);
    expect((await sandbox.run(['users', 'offboard', 'soleowner', '--plan-only'])).code).toBe(9);

    sandbox.clearRequests();
    const handed = await sandbox.run(['users', 'offboard', 'soleowner', '--transfer-to', 'alice', '--yes', '-o', 'json']);
    expect(handed.code, handed.stderr).toBe(0);
    expect(handed.json<Array<{ action: string; target: string }>>().map((r) => `${r.action} ${r.target}`)).toEqual(['add-owner group lab', 'remove-membership group lab', 'remove-membership group lab/inner']);
    expect(handed.json<Array<{ detail: string }>>()[0].detail).toBe('alice became Owner (was not a direct member); soleowner was its only owner');
    // Each membership by its own request: lab's removal leaves lab/inner's to its own step.
    expect(writes().map((r) => `${r.method} ${r.path.replace(/\d+/g, 'N')}`)).toEqual(['POST /api/vN/groups/N/members', 'DELETE /api/vN/groups/N/members/N?skip_subresources=true', 'DELETE /api/vN/groups/N/members/N?skip_subresources=true']);
    expect((await sandbox.call('GET', '/groups/lab/members')).body.map((m: { username: string; access_level: number }) => `${m.username}:${m.access_level}`)).toEqual(['alice:50']);
  });

  it('owners nobody can act as (a blocked user, an access token\'s bot) do not count: the group is named, its owner stays', async () => {
    const owner = await made(sandbox, '/users', { username: 'lastperson', name: 'Last Person', email: 'last@example.com', password: 'long-enough-pw-1' });
    const token = (await made(sandbox, `/users/${owner.id}/personal_access_tokens`, { name: 'own', scopes: ['api'], expires_at: EXPIRES })).token;
    const tools = (await sandbox.call('POST', '/groups', { name: 'Tools', path: 'tools-last' }, token)).body;
    const bot = (await sandbox.call('GET', `/users/${(await made(sandbox, `/groups/${tools.id}/access_tokens`, { name: 'ci', scopes: ['api'], access_level: 50, expires_at: EXPIRES })).user_id}`)).body;
    const gone = await made(sandbox, '/users', { username: 'goneowner', name: 'Gone Owner', email: 'gone@example.com', password: 'long-enough-pw-1' });
    await made(sandbox, `/groups/${tools.id}/members`, { user_id: gone.id, access_level: 50 });
    expect((await sandbox.call('POST', `/users/${gone.id}/block`)).status).toBe(201);
    // Nor can a bot take the group over.
    sandbox.clearRequests();
    const toBot = await sandbox.run(['users', 'offboard', 'lastperson', '--transfer-to', bot.username, '--yes']);
    expect(toBot.code, toBot.stderr).toBe(2);
    expect(toBot.stderr).toBe(`error: --transfer-to ${bot.username}: the user is a bot, and nobody could act as the owner of what lastperson hands over; nothing was changed\nhint: name a person who takes over their groups\n`);
    expect(writes()).toEqual([]);
    const result = await sandbox.run(['users', 'offboard', 'lastperson', '--yes']);
    expect(result.code, result.stderr).toBe(9);
    expect(result.stderr).toContain('  group tools-last: lastperson is its only owner');
    expect((await leftOf(sandbox, owner.id)).memberships.map((m: { source_name: string }) => m.source_name)).toEqual(['Tools']);
    // A handing over the service refuses keeps the only owner in: the removal is not sent.
    sandbox.fault({ method: 'POST', path: `^/groups/${tools.id}/members$`, status: 422, body: { message: { access_level: ['is not included in the list'] } } });
    sandbox.clearRequests();
    const refused = await sandbox.run(['users', 'offboard', 'lastperson', '--transfer-to', 'alice', '--yes', '-o', 'json']);
    expect(refused.code, refused.stderr).toBe(9);
    expect(refused.json<Array<{ action: string; status: string; detail: string }>>().map((r) => `${r.action} ${r.status}`)).toEqual(['add-owner failed', 'remove-membership failed']);
    expect(refused.json<Array<{ detail: string }>>()[1].detail).toBe('not sent: alice did not become Owner of tools-last, and lastperson is its only owner');
    expect(writes().filter((r) => r.method === 'DELETE')).toEqual([]);
    expect((await leftOf(sandbox, owner.id)).memberships.map((m: { source_name: string }) => m.source_name)).toEqual(['Tools']);
    // The next run hands it over and takes lastperson out.
    const handed = await sandbox.run(['users', 'offboard', 'lastperson', '--transfer-to', 'alice', '--yes']);
    expect(handed.code, handed.stderr).toBe(0);
    expect((await leftOf(sandbox, owner.id)).memberships).toEqual([]);
  });

  it('checks every value before the first write: unknown users, a transfer to an inactive user, a mode the service refuses', async () => {
    await made(sandbox, '/users', { username: 'recent', name: 'Recent', email: 'recent@example.com', password: 'long-enough-pw-1' });
    users(sandbox.db).find((u) => u.username === 'recent')!.last_activity_on = new Date().toISOString().slice(0, 10);
    sandbox.clearRequests();
    const cases: Array<[string[], number, RegExp]> = [
      [['users', 'offboard', 'nobody-here', '--yes'], 5, /no user named "nobody-here"/],
      [['users', 'offboard', 'recent', '--transfer-to', 'nobody-here', '--yes'], 5, /no user named "nobody-here"/],
      [['users', 'offboard', 'recent', '--transfer-to', 'leaver', '--yes'], 2, /--transfer-to leaver: the user is blocked/],
      [['users', 'offboard', 'recent', '--transfer-to', 'recent', '--yes'], 2, /names the user being offboarded/],
      [['users', 'offboard', 'recent', '--mode', 'deactivate', '--yes'], 2, /was active on .* only users without activity in the last 90 days.*\nhint: use --mode block/],
      [['users', 'offboard', 'leaver', '--mode', 'ban', '--yes'], 2, /leaver is blocked: the service bans active users only/],
      [['users', 'offboard', 'root', '--yes'], 2, /you cannot offboard yourself/],
      [['users', 'offboard', 'recent', '--keep', 'tokens,wallets'], 2, /--keep wallets: unknown; choose from memberships, tokens, impersonation-tokens, ssh-keys, gpg-keys/],
      [['users', 'offboard', 'recent', '--mode', 'erase'], 2, /--mode must be one of block, deactivate, ban/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await sandbox.run(argv);
      expect([result.code, result.stderr], argv.join(' ')).toEqual([code, expect.stringMatching(message)]);
    }
    expect(writes()).toEqual([]);
  });

  it('refuses a bot user (a project access token\'s), naming how to revoke it instead; nothing sent', async () => {
    const [token] = (await sandbox.call('GET', '/projects/acme%2Fapi/access_tokens')).body as Array<{ user_id: number }>;
    const bot = (await sandbox.call('GET', `/users/${token.user_id}`)).body as { username: string; bot: boolean };
    expect(bot.bot).toBe(true);
    sandbox.clearRequests();
    for (const argv of [['users', 'offboard', bot.username, '--yes'], ['users', 'offboard', bot.username, '--dry-run']]) {
      const result = await sandbox.run(argv);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`error: ${bot.username} is a bot user (of a project or group access token, or a service account), not a person`);
      expect(result.stderr).toContain('hint: revoke such a token with forgectl tokens revoke');
    }
    expect(writes()).toEqual([]);
    expect((await sandbox.call('GET', `/users/${token.user_id}`)).body.state).toBe('active');
  });

  it('a token that is not an administrator\'s: exit 4, saying the command is for administrators, nothing sent', async () => {
    // An active user: the blocked leaver is not found by anyone but administrators, as on the service.
    await departingUser(sandbox, 'staying');
    sandbox.clearRequests();
    const result = await sandbox.run(['users', 'offboard', 'staying', '--plan-only'], { env: { FORGECTL_TOKEN: sandbox.tokenWithRole('owner') } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('hint: this is for administrators of the instance, and the token in use is not one');
    expect(writes()).toEqual([]);
  });

  it('Ctrl-C part-way: exit 130, one line saying what was in flight and how many steps were done; the next run finishes', async () => {
    const user = await departingUser(sandbox, 'stopped');
    sandbox.fault({ method: 'DELETE', path: '/members/\\d+$', answer_latency_ms: 5_000 });
    const removed = (async () => {
      while ((await leftOf(sandbox, user.id)).memberships.length !== 2) await new Promise((resolve) => setTimeout(resolve, 20));
      return 'SIGINT' as const;
    })();
    const result = await sandbox.run(['users', 'offboard', 'stopped', '--yes'], { interrupted: removed });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/interrupted by SIGINT: DELETE \/groups\/\d+\/members\/\d+ was sent; whether the server acted on it is unknown\noffboarding stopped: 1 of 8 steps done; run the same command again to finish\n$/);
    const again = await sandbox.run(['users', 'offboard', 'stopped', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(await leftOf(sandbox, user.id)).toEqual(OFFBOARDED);
  });

  it('a step gone meanwhile counts as done; one the service refuses is reported, the rest done, exit 9, and the next run retries it', async () => {
    const user = await departingUser(sandbox, 'refused');
    sandbox.fault({ method: 'DELETE', path: '/projects/\\d+/members/\\d+$', status: 404, body: { message: '404 Not found' } });
    sandbox.fault({ method: 'DELETE', path: '/personal_access_tokens/\\d+$', status: 403, body: { message: '403 Forbidden' } });
    const first = await sandbox.run(['users', 'offboard', 'refused', '--yes', '-o', 'json']);
    expect(first.code).toBe(9);
    const rows = first.json<Array<{ action: string; status: string; detail: string }>>();
    expect(rows.map((r) => `${r.action} ${r.status}`)).toEqual([
      'block done', 'remove-membership done', 'remove-membership gone', 'remove-membership done', 'revoke-token failed', 'revoke-impersonation-token done', 'delete-ssh-key done', 'delete-gpg-key done',
    ]);
    expect(rows[4].detail).toBe('403 Forbidden');
    expect(first.stderr).toContain('attention: 1 step failed: revoke-token personal access token laptop');
    // The membership the fault answered 404 for is still there, and so is the token: the next run finishes both.
    const again = await sandbox.run(['users', 'offboard', 'refused', '--yes', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json<Array<{ action: string }>>().map((r) => r.action)).toEqual(['remove-membership', 'revoke-token']);
    expect(await leftOf(sandbox, user.id)).toEqual(OFFBOARDED);
  });

  it('--keep leaves what it names; --mode ban bans an active user', async () => {
    const user = await departingUser(sandbox, 'keeper');
    const result = await sandbox.run(['users', 'offboard', 'keeper', '--mode', 'ban', '--keep', 'memberships,gpg-keys', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    const left = await leftOf(sandbox, user.id);
    expect(left).toMatchObject({ state: 'banned', tokens: [], impersonation: [], ssh: [] });
    expect(left.memberships).toHaveLength(3);
    expect(left.gpg).toHaveLength(1);
    expect((await sandbox.run(['users', 'offboard', 'keeper', '--mode', 'ban', '--keep', 'memberships,gpg-keys'])).stderr).toContain('nothing to do');
  });
});
