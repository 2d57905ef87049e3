import { describe, expect, it } from 'vitest';
import { useTestSandbox } from '../../../test/helpers/cli.js';
import { users } from '../../sandbox/model.js';

const sandbox = useTestSandbox();
const writes = () => sandbox.requests().filter((r) => r.method !== 'GET');
const stateOf = async (username: string) => (await sandbox.call('GET', `/users?username=${username}`)).body[0]?.state;

async function newUser(username: string, state?: string): Promise<number> {
  const made = await sandbox.call('POST', '/users', { username, name: `User ${username}`, email: `${username}@example.com`, password: 'long-enough-pw-1' });
  expect(made.status, made.text).toBe(201);
  if (state) users(sandbox.db).find((u) => u.id === made.body.id)!.state = state as never;
  return made.body.id as number;
}

describe('users create', () => {
  it('takes the password from stdin only, checks it before sending, and says who has a taken name', async () => {
    const created = await sandbox.run(['users', 'create', '--username', 'newhire', '--name', 'New Hire', '--email', 'newhire@example.com', '--password-stdin', '-o', 'json'], { input: 'a-long-password\n' });
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ username: 'newhire', email: 'newhire@example.com', state: 'active' });
    expect(users(sandbox.db).find((u) => u.username === 'newhire')!.password).toBe('a-long-password');
    expect((await sandbox.run(['users', 'create', '--username', 'sso', '--name', 'SSO', '--email', 'sso@example.com', '--force-random-password'])).code).toBe(0);

    sandbox.clearRequests();
    const none = await sandbox.run(['users', 'create', '--username', 'x1', '--name', 'X', '--email', 'x1@example.com']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('how does the user get a password? give --password-stdin, --reset-password or --force-random-password')]);
    const short = await sandbox.run(['users', 'create', '--username', 'x1', '--name', 'X', '--email', 'x1@example.com', '--password-stdin'], { input: 'short\n' });
    expect([short.code, short.stderr]).toEqual([2, expect.stringContaining('the password is too short (at least 8 characters)')]);
    expect((await sandbox.run(['users', 'create', '--username', 'x1', '--name', 'X', '--email', 'x1@example.com', '--password', 'hunter22'])).code).toBe(2);
    // A username or email the service would refuse is bad input: exit 2, nothing sent.
    const badName = await sandbox.run(['users', 'create', '--username', 'x1!', '--name', 'X', '--email', 'x1@example.com', '--reset-password']);
    expect([badName.code, badName.stderr.split('\n')[0]]).toEqual([2, 'error: --username "x1!" is not a username the service takes']);
    const badEmail = await sandbox.run(['users', 'create', '--username', 'x1', '--name', 'X', '--email', 'not-an-email', '--reset-password']);
    expect([badEmail.code, badEmail.stderr]).toEqual([2, 'error: --email "not-an-email" is not an email address\n']);
    expect(writes()).toEqual([]);

    const taken = await sandbox.run(['users', 'create', '--username', 'newhire', '--name', 'X', '--email', 'other@example.com', '--reset-password']);
    expect(taken.code).toBe(6);
    expect(taken.stderr).toContain('Username has already been taken');
    expect(taken.stderr).toContain('hint: find its owner with: forgectl users get USERNAME');
  });
});

describe('users block, unblock, deactivate, activate, ban, unban', () => {
  it('a --fields that names nothing of a user is refused before the change is sent (exit 2 means nothing was sent)', async () => {
    await newUser('fieldy');
    sandbox.clearRequests();
    for (const argv of [['users', 'block', 'fieldy', '--yes'], ['users', 'offboard', 'fieldy', '--yes'], ['members', 'add', 'fieldy', '--group', 'acme', '--access-level', 'guest']]) {
      const refused = await sandbox.run([...argv, '--fields', 'nope']);
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr, argv.join(' ')).toMatch(/^error: unknown field: nope/);
    }
    expect(writes()).toEqual([]);
    expect(await stateOf('fieldy')).toBe('active');
    const blocked = await sandbox.run(['users', 'block', 'fieldy', '--yes', '--fields', 'username,state', '-o', 'csv']);
    expect(blocked.stdout).toBe('username,state\r\nfieldy,blocked\r\n');
  });

  it('block asks first (exit 2 off a terminal, nothing sent), then blocks; a second run has nothing to do', async () => {
    await newUser('mallory');
    sandbox.clearRequests();
    const asked = await sandbox.run(['users', 'block', 'mallory']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('error: confirmation needed: Block mallory (User mallory)? They can no longer sign in or use their tokens and keys (their memberships stay).');
    expect(writes()).toEqual([]);
    const blocked = await sandbox.run(['users', 'block', 'mallory', '--yes', '-o', 'json']);
    expect(blocked.code, blocked.stderr).toBe(0);
    expect(blocked.json()).toMatchObject({ username: 'mallory', state: 'blocked' });
    sandbox.clearRequests();
    const again = await sandbox.run(['users', 'block', 'mallory', '--yes']);
    expect([again.code, again.stderr]).toEqual([0, expect.stringContaining('mallory is blocked already; nothing to do')]);
    expect(writes()).toEqual([]);
  });

  it('the service\'s refusals come back with its reason, exit 4, and what to do instead', async () => {
    // mallory is blocked: she is unblocked, not activated; and she cannot be deactivated or banned.
    const activate = await sandbox.run(['users', 'activate', 'mallory']);
    expect(activate.code).toBe(4);
    expect(activate.stderr).toContain('A blocked user must be unblocked to be activated');
    expect(activate.stderr).toContain('hint: unblock the user instead: forgectl users unblock USER');
    const ban = await sandbox.run(['users', 'ban', 'mallory', '--yes']);
    expect([ban.code, ban.stderr]).toEqual([4, expect.stringContaining('You cannot ban blocked users.')]);
    const deactivate = await sandbox.run(['users', 'deactivate', 'mallory', '--yes']);
    expect([deactivate.code, deactivate.stderr]).toEqual([4, expect.stringContaining('A blocked user cannot be deactivated')]);
    expect((await sandbox.run(['users', 'unblock', 'mallory'])).code).toBe(0);
    expect(await stateOf('mallory')).toBe('active');

    users(sandbox.db).find((u) => u.username === 'mallory')!.last_activity_on = new Date().toISOString().slice(0, 10);
    const recent = await sandbox.run(['users', 'deactivate', 'mallory', '--yes']);
    expect(recent.code).toBe(4);
    expect(recent.stderr).toContain('has been active in the past 90 days and cannot be deactivated');
    expect(recent.stderr).toContain('hint: block the user instead (forgectl users block USER)');
    expect((await sandbox.run(['users', 'nonsense', 'mallory'])).code).toBe(2);
    expect((await sandbox.run(['users', 'block', 'nobody-here', '--yes'])).code).toBe(5);
  });

  it('does not deactivate a user who used the API minutes ago, however old their recorded activity was', async () => {
    const token = sandbox.tokenWithRole('developer');
    users(sandbox.db).find((u) => u.username === 'developer-of-acme')!.last_activity_on = '2025-01-01';
    expect((await sandbox.run(['projects', 'list'], { env: { FORGECTL_TOKEN: token } })).code).toBe(0);
    const deactivate = await sandbox.run(['users', 'deactivate', 'developer-of-acme', '--yes']);
    expect([deactivate.code, deactivate.stderr]).toEqual([4, expect.stringContaining('has been active in the past 90 days and cannot be deactivated')]);
    expect(await stateOf('developer-of-acme')).toBe('active');
  });

  it('never locks out the caller: block, deactivate, ban and delete of the token\'s own user are refused before anything is sent (exit 2)', async () => {
    sandbox.clearRequests();
    for (const verb of ['ban', 'block', 'deactivate', 'delete']) {
      const result = await sandbox.run(['users', verb, 'root', '--yes']);
      expect([result.code, result.stderr], verb).toEqual([2, `error: you cannot ${verb} yourself: the token in use is root's own, and it would lock you out; nothing was sent\nhint: run it with the token of another administrator\n`]);
    }
    expect(writes()).toEqual([]);
    expect(await stateOf('root')).toBe('active');
  });

  it('an empty user (a script\'s unset "$USER") or a name that is only part of one is nobody: nothing blocked or deleted', async () => {
    sandbox.clearRequests();
    for (const verb of ['ban', 'block', 'deactivate', 'delete', 'offboard']) {
      for (const given of ['', ' ', '@']) {
        const result = await sandbox.run(['users', verb, given, '--yes']);
        expect([result.code, result.stderr], `${verb} "${given}"`).toEqual([2, 'error: no user given: name the user by username or ID; nothing was sent\nhint: check the name with: forgectl users list --search NAME\n']);
      }
      const partial = await sandbox.run(['users', verb, 'ali', '--yes']);
      expect([partial.code, partial.stderr.split('\n')[0]], verb).toEqual([5, 'error: no user named "ali"']);
    }
    expect(writes()).toEqual([]);
  });

  it('deactivates a dormant user and activates them; bans and unbans; unblocking a banned user unbans them', async () => {
    await newUser('dormant');
    for (const [argv, state] of [[['deactivate', 'dormant', '--yes'], 'deactivated'], [['activate', 'dormant'], 'active'], [['ban', 'dormant', '--yes'], 'banned'], [['unban', 'dormant'], 'active'], [['ban', 'dormant', '--yes'], 'banned'], [['unblock', 'dormant'], 'active']] as const) {
      const result = await sandbox.run(['users', ...argv]);
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      expect(await stateOf('dormant'), argv.join(' ')).toBe(state);
    }
    sandbox.clearRequests();
    expect((await sandbox.run(['users', 'unban', 'dormant'])).stderr).toContain('dormant is active already; nothing to do');
    expect(writes()).toEqual([]);
  });
});

describe('users approve and reject', () => {
  it('approves a pending sign-up; one not pending is refused (exit 6) with where to look', async () => {
    await newUser('signup1', 'blocked_pending_approval');
    const approved = await sandbox.run(['users', 'approve', 'signup1', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.json()).toMatchObject({ state: 'active' });
    await newUser('plainblocked', 'blocked');
    const refused = await sandbox.run(['users', 'approve', 'plainblocked']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('The user you are trying to approve is not pending approval');
    // The hint's command lists the sign-ups pending approval, as written.
    const hint = refused.stderr.match(/list them with: forgectl (.*)\n/)![1];
    const pending = await sandbox.run(hint.match(/'[^']*'|\S+/g)!.map((word) => word.replace(/^'|'$/g, '')));
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toBe('applicant\n');
  });

  it('reject asks first, then deletes the sign-up; one not pending is refused before asking (exit 6)', async () => {
    await newUser('signup2', 'blocked_pending_approval');
    sandbox.clearRequests();
    expect((await sandbox.run(['users', 'reject', 'signup2'])).code).toBe(2);
    expect(writes()).toEqual([]);
    const rejected = await sandbox.run(['users', 'reject', 'signup2', '--yes']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(await stateOf('signup2')).toBeUndefined();
    // An account that is no sign-up is refused before any question about deleting it, and nothing is sent.
    sandbox.clearRequests();
    for (const args of [['newhire'], ['newhire', '--yes']]) {
      const active = await sandbox.run(['users', 'reject', ...args]);
      expect(active.code).toBe(6);
      expect(active.stderr).toBe('error: newhire is active: only a sign-up pending approval is rejected; nothing was sent\nhint: to remove an account: forgectl users delete USER\n');
    }
    expect(writes()).toEqual([]);
  });
});

describe('users delete', () => {
  it('names what goes with the account and asks; --yes deletes it, its contributions kept for the Ghost User', async () => {
    const id = await newUser('leaving');
    await sandbox.call('POST', `/projects/user/${id}`, { name: 'notes' });
    sandbox.clearRequests();
    const asked = await sandbox.run(['users', 'delete', 'leaving']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('error: confirmation needed: Delete user leaving (User leaving)? Deleted with the account: 1 personal project (leaving/notes), their tokens, SSH and GPG keys and emails. Their issues, merge requests, comments and snippets stay, credited to the Ghost User.');
    expect(writes()).toEqual([]);
    expect((await sandbox.run(['users', 'delete', 'leaving', '--yes'])).code).toBe(0);
    expect(await stateOf('leaving')).toBeUndefined();
  });

  it('refuses the only owner of a group before sending anything (exit 6, naming it); --hard-delete names the group it deletes', async () => {
    const id = await newUser('founder');
    const token = (await sandbox.call('POST', `/users/${id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body.token;
    expect((await sandbox.call('POST', '/groups', { name: 'Garage', path: 'garage' }, token)).status).toBe(201);
    sandbox.clearRequests();
    const refused = await sandbox.run(['users', 'delete', 'founder', '--yes']);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain('founder is the only owner of 1 group (garage), and the service does not delete a group\'s only owner; nothing was sent');
    expect(refused.stderr).toContain('hint: hand the groups over first (forgectl users offboard founder --transfer-to USER), or add --hard-delete');
    expect(writes()).toEqual([]);
    const hard = await sandbox.run(['users', 'delete', 'founder', '--hard-delete']);
    expect(hard.stderr).toContain('(hard delete)? Deleted with the account: 1 membership, their tokens, SSH and GPG keys and emails. Their issues, merge requests, comments and snippets are deleted too, and so are the groups they alone own: garage (with their projects).');
    expect((await sandbox.run(['users', 'delete', 'founder', '--hard-delete', '--yes'])).code).toBe(0);
    expect((await sandbox.call('GET', '/groups/garage')).status).toBe(404);
  });
});
