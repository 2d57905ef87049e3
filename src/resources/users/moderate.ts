import { users } from './resource.js';
import { defineCommand, type CommandDef, type Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { notYourself, userArg, userRecord, userWords, type UserRecord } from './shared.js';

/**
 * The state changes of an account as the service makes them (administrators): block and unblock, deactivate and
 * activate, ban and unban, approve and reject a pending sign-up. Each reads the user first: one already in the state
 * asked for is left alone (exit 0, nothing sent). Those that lock someone out, or delete a sign-up, ask first; the
 * service's refusals (an LDAP-blocked user, a user active in the last 90 days, a user not pending approval …) come
 * back with its reason and what to do instead.
 */

type Verb = 'block' | 'unblock' | 'deactivate' | 'activate' | 'ban' | 'unban' | 'approve' | 'reject';

interface Moderation {
  /** The state the user is in afterwards. */
  to: string;
  /** States in which there is nothing to do. */
  already: string[];
  description: string;
  example: string;
  /** The question asked before a change that locks someone out or deletes (none: it does not ask). */
  question?: (user: UserRecord) => string;
  /** The only states it applies to, checked before asking (none: the service decides). */
  only?: { states: string[]; refusal: string; hint: string };
  /** What to do instead, by a phrase of the service's refusal. */
  hints: Array<[RegExp, string]>;
  /** Past tense for the line on stderr. */
  done: string;
}

const BLOCKED_HINT: [RegExp, string] = [/ldap/i, 'the LDAP synchronisation blocks and unblocks this user: change the account in the directory'];

const MODERATIONS: Record<Verb, Moderation> = {
  block: {
    to: 'blocked',
    // Banned and pending sign-ups are blocked too: the service changes nothing.
    already: ['blocked', 'ldap_blocked', 'banned', 'blocked_pending_approval'],
    description: 'Blocks an account: the user can no longer sign in, push, pull or use any token or SSH key; their memberships, projects and contributions stay. Reversible with users unblock. Asks first (--yes off a terminal).',
    example: 'forgectl users block omar --yes',
    question: (user) => `Block ${userWords(user)}? They can no longer sign in or use their tokens and keys (their memberships stay).`,
    hints: [BLOCKED_HINT],
    done: 'Blocked',
  },
  unblock: {
    to: 'active',
    already: ['active'],
    description: 'Unblocks a blocked account (a banned one too, which unbans it; a pending sign-up too, which approves it without telling the user). A deactivated user is activated instead (users activate); LDAP-blocked users are the directory\'s.',
    example: 'forgectl users unblock omar',
    hints: [BLOCKED_HINT, [/deactivated/i, 'a deactivated user is activated instead: forgectl users activate USER']],
    done: 'Unblocked',
  },
  deactivate: {
    to: 'deactivated',
    already: ['deactivated'],
    description: 'Deactivates a dormant account (no activity in the last 90 days): it frees the license seat, and the user is activated again by signing in. The service refuses users active more recently (block them instead) and blocked users. Asks first (--yes off a terminal).',
    example: 'forgectl users deactivate omar --yes',
    question: (user) => `Deactivate ${userWords(user)}? They cannot use the API or Git until they sign in again.`,
    hints: [[/active in the past/i, 'block the user instead (forgectl users block USER), which the service allows whenever they were last active'], [/blocked/i, 'the user is blocked already, which keeps them out too']],
    done: 'Deactivated',
  },
  activate: {
    to: 'active',
    already: ['active'],
    description: 'Activates a deactivated account. A blocked user is unblocked instead (users unblock).',
    example: 'forgectl users activate omar',
    hints: [[/blocked/i, 'unblock the user instead: forgectl users unblock USER']],
    done: 'Activated',
  },
  ban: {
    to: 'banned',
    already: ['banned'],
    description: 'Bans an active account: blocked, and their projects, issues and merge requests hidden from others. Reversible with users unban. Asks first (--yes off a terminal).',
    example: 'forgectl users ban omar --yes',
    question: (user) => `Ban ${userWords(user)}? They are blocked, and what they made is hidden from others until unbanned.`,
    hints: [[/cannot ban/i, 'the service bans active users only: this one is locked out already']],
    done: 'Banned',
  },
  unban: {
    to: 'active',
    already: ['active'],
    description: 'Unbans a banned account: it is active again and what it made is shown again.',
    example: 'forgectl users unban omar',
    hints: [[/cannot unban/i, 'only a banned user is unbanned; a blocked one is unblocked: forgectl users unblock USER']],
    done: 'Unbanned',
  },
  approve: {
    to: 'active',
    already: ['active'],
    description: 'Approves a sign-up pending an administrator\'s approval (state blocked_pending_approval): the account becomes active and the user is told by email.',
    example: 'forgectl users approve applicant',
    // --blocked lists blocked and LDAP-blocked users only, as the service filters: not sign-ups pending approval.
    hints: [[/not pending/i, 'only a sign-up pending approval is approved; list them with: forgectl users list --all --jq \'select(.state == "blocked_pending_approval") | .username\'']],
    done: 'Approved',
  },
  reject: {
    to: 'rejected',
    already: [],
    description: 'Rejects a sign-up pending an administrator\'s approval: the account is deleted and the person told by email. Asks first (--yes off a terminal).',
    example: 'forgectl users reject applicant --yes',
    question: (user) => `Reject the sign-up of ${userWords(user)}? The account is deleted.`,
    // Not asked about an account that is no sign-up: the service would refuse after the question.
    only: { states: ['blocked_pending_approval'], refusal: 'only a sign-up pending approval is rejected', hint: 'to remove an account: forgectl users delete USER' },
    hints: [[/pending request/i, 'only a sign-up pending approval is rejected; to remove an account: forgectl users delete USER']],
    done: 'Rejected the sign-up of',
  },
};

/** The service's refusal with what to do instead, where the command knows it. */
function explained(error: unknown, hints: Array<[RegExp, string]>): unknown {
  if (!(error instanceof ApiError) || error.hint) return error;
  const hint = hints.find(([phrase]) => phrase.test(error.message))?.[1];
  return hint ? error.explained(error.message, hint) : error;
}

async function moderate(verb: Verb, opts: { user: string }, ctx: Context): Promise<unknown> {
  const spec = MODERATIONS[verb];
  const user = await userRecord(ctx, opts.user);
  if (spec.already.includes(user.state)) {
    ctx.io.note(`${user.username} is ${user.state} already; nothing to do`);
    return user;
  }
  if (spec.only && !spec.only.states.includes(user.state)) {
    throw new CliError(`${user.username} is ${user.state}: ${spec.only.refusal}; nothing was sent`, ExitCode.rejected, spec.only.hint);
  }
  if (spec.question) {
    await notYourself(ctx, user, verb);
    await ctx.confirm(spec.question(user));
  }
  const route = users.routes[verb];
  await ctx.api.call(route, { user: user.id }).catch((error: unknown) => {
    throw explained(error, spec.hints);
  });
  ctx.io.note(`${spec.done} ${user.username}`);
  // A rejected sign-up is deleted: there is no record to read back.
  if (verb === 'reject') return undefined;
  return ctx.api.call<UserRecord>(users.routes.get, { user: user.id });
}

const command = (verb: Verb): CommandDef<{ user: string }> =>
  defineCommand<{ user: string }>({
    effect: verb === 'reject' ? 'destructive' : 'write',
    description: `${MODERATIONS[verb].description} Needs an administrator.`,
    examples: [MODERATIONS[verb].example],
    args: [userArg],
    columns: ['id', 'username', 'name', 'state'],
    recordFields: Object.keys(users.fields),
    run: (opts, ctx) => moderate(verb, opts, ctx),
  });

export default {
  block: command('block'),
  unblock: command('unblock'),
  deactivate: command('deactivate'),
  activate: command('activate'),
  ban: command('ban'),
  unban: command('unban'),
  approve: command('approve'),
  reject: command('reject'),
};
