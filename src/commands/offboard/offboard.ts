import type { Api } from '../../api/client.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { ApiError, ExitCode } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { parseChoice, parseChoiceList, plural } from '../../parse.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { gpgKeys } from '../../resources/gpg-keys/resource.js';
import { sshKeys } from '../../resources/keys/resource.js';
import { members } from '../../resources/members/resource.js';
import { users } from '../../resources/users/resource.js';
import { someOf, userArg, userWords } from '../../resources/users/shared.js';
import { MODES, PARTS, roleOf, survey, type Mode, type Part, type Survey } from './survey.js';

/**
 * `users offboard`: takes a departing user's access away as one reviewed operation. It reads everything first (see
 * survey.ts), shows the plan, asks, then keeps the user out (block, deactivate or ban), hands the groups they alone
 * own to --transfer-to, removes each direct membership, revokes their tokens and deletes their keys. Each step is
 * read from what is there, so a second run finds nothing to do, and a run cut short is finished by the next.
 */

interface Options {
  user: string;
  mode: Mode;
  keep?: Part[];
  transferTo?: string;
  planOnly?: boolean;
}

/** One row of the plan and of the report. */
interface Row {
  action: string;
  target: string;
  status: 'planned' | 'done' | 'gone' | 'failed' | 'cannot';
  detail: string;
}

/** The fields of a row, for --fields (checked before anything is sent). */
const ROW_FIELDS: ReadonlyArray<keyof Row> = ['action', 'target', 'status', 'detail'];

interface Step {
  row: Row;
  /** Sends the change; the service's answer that it is gone already (404, already revoked) counts as done. */
  send: (api: Api) => Promise<unknown>;
  /** The detail once done, where the planned one says what is so now ("now active" is not, once blocked). */
  doneDetail?: string;
  /** The group this step hands over to the heir (add-owner). */
  handsOver?: string;
  /** The group the user alone owns that this step takes them out of: sent only once the heir owns it or a group above. */
  soleOwned?: string;
}

const STATE_ACTIONS: Record<Mode, { route: string; words: string }> = {
  block: { route: users.routes.block, words: 'block the account: no sign-in, no Git, no API' },
  deactivate: { route: users.routes.deactivate, words: 'deactivate the account (it frees the seat; signing in again would activate it)' },
  ban: { route: users.routes.ban, words: 'ban the account: blocked, and what they made hidden from others' },
};

const planned = (action: string, target: string, detail: string): Row => ({ action, target, status: 'planned', detail });

/** The changes the survey calls for, in the order they are sent: the user is kept out first, ownership handed over before it is given up. */
function stepsOf(found: Survey): Step[] {
  const { user, heir } = found;
  const steps: Step[] = [];
  if (found.changeState) {
    const state = STATE_ACTIONS[found.mode];
    steps.push({ row: planned(found.mode, user.username, `${state.words} (now ${user.state})`), send: (api) => api.call(state.route, { user: user.id }), doneDetail: `${state.words} (was ${user.state})` });
  }
  for (const { group, current } of found.transfers) {
    const role = current === undefined ? 'not a direct member' : roleOf(current);
    const detail = `${heir!.username} becomes Owner (${current === undefined ? `${role} now` : `now ${role}`}); ${user.username} is its only owner`;
    const send = (api: Api) => (current === undefined
      ? api.call(members.parents.group.routes.create, { group: group.id, user_id: heir!.id, access_level: 50 })
      : api.call(members.parents.group.routes.update, { group: group.id, user_id: heir!.id, access_level: 50 }));
    steps.push({ row: planned('add-owner', `group ${group.path}`, detail), send, doneDetail: `${heir!.username} became Owner (was ${role}); ${user.username} was its only owner`, handsOver: group.path });
  }
  for (const m of found.memberships) {
    // Each membership goes by its own step, as the plan lists it: a group's removal would otherwise take the user's
    // memberships of its subgroups and projects along, and the steps for those would find them gone.
    const send = (api: Api) => (m.kind === 'group'
      ? api.call(members.parents.group.routes.delete, { group: m.id, user_id: user.id, skip_subresources: true })
      : api.call(members.parents.project.routes.delete, { project: m.id, user_id: user.id }));
    steps.push({ row: planned('remove-membership', `${m.kind} ${m.path}`, roleOf(m.access_level)), send, soleOwned: m.soleOwner ? m.path : undefined });
  }
  for (const t of found.tokens) {
    steps.push({ row: planned('revoke-token', `personal access token ${t.name} (id ${t.id})`, tokenDetail(t)), send: (api) => api.call(accessTokens.parents.personal.routes.delete, { token_id: t.id }) });
  }
  for (const t of found.impersonationTokens) {
    const route = impersonationTokens.routes.delete;
    steps.push({ row: planned('revoke-impersonation-token', `impersonation token ${t.name} (id ${t.id})`, tokenDetail(t)), send: (api) => api.call(route, { user: user.id, impersonation_token_id: t.id }) });
  }
  for (const k of found.sshKeys) {
    steps.push({ row: planned('delete-ssh-key', `SSH key ${k.title} (id ${k.id})`, ''), send: (api) => api.call(sshKeys.parents.user.routes.delete, { user: user.id, key_id: k.id }) });
  }
  for (const k of found.gpgKeys) {
    steps.push({ row: planned('delete-gpg-key', `GPG key ${k.id}`, `${k.title}; commits it signed stay verified`), send: (api) => api.call(gpgKeys.parents.user.routes.delete, { user: user.id, key_id: k.id }) });
  }
  return steps;
}

const tokenDetail = (t: { scopes?: string[]; expires_at?: string | null }): string => `${(t.scopes ?? []).join(',') || 'no scopes'}; expires ${t.expires_at ?? 'never'}`;

/** What cannot be taken away, with how to fix it. */
function cannotRows(found: Survey): Row[] {
  return found.cannot.map((group) => ({
    action: 'remove-membership',
    target: `group ${group.path}`,
    status: 'cannot',
    detail: `${found.user.username} is its only owner: hand it over with --transfer-to USER, or add an owner first (forgectl members add USER --group ${group.path} --access-level owner)`,
  }));
}

/**
 * The plan, on stderr, before anything is asked or sent; its steps are left to the table when the table on the same
 * terminal is the plan itself (`listed`: --plan-only and --dry-run), where they would be shown twice.
 */
function showPlan(ctx: Context, found: Survey, steps: Step[], cannot: Row[], listed: boolean): void {
  ctx.io.note(`Offboarding ${userWords(found.user)}, ${found.user.state}:`);
  if (!listed) for (const { row } of steps) ctx.io.note(`  ${row.action} ${row.target}${row.detail ? ` — ${row.detail}` : ''}`);
  if (!steps.length) ctx.io.note('  nothing to change');
  if (found.personalProjects.length) {
    ctx.io.note(`Stays: ${plural(found.personalProjects.length, 'personal project')} (${someOf(found.personalProjects)}), with the account; forgectl users delete removes them`);
  }
  if (cannot.length && !listed) {
    ctx.io.note('Cannot be done:');
    for (const row of cannot) ctx.io.note(`  ${row.target}: ${row.detail}`);
  }
}

/** "block, 3 memberships removed, 2 tokens revoked, 2 keys deleted". */
function summary(rows: Row[]): string {
  const count = (prefix: string) => rows.filter((r) => r.action.startsWith(prefix)).length;
  const parts = [
    ...rows.filter((r) => MODES.includes(r.action as Mode)).map((r) => r.action),
    count('add-owner') ? `${plural(count('add-owner'), 'group')} handed over` : '',
    count('remove-') ? `${plural(count('remove-'), 'membership')} removed` : '',
    count('revoke-') ? `${plural(count('revoke-'), 'token')} revoked` : '',
    count('delete-') ? `${plural(count('delete-'), 'key')} deleted` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** Sends one step: done, gone already (404, a token revoked meanwhile), or failed with the service's reason. */
async function send(api: Api, step: Step): Promise<Row> {
  try {
    await step.send(api);
    return { ...step.row, status: 'done', detail: step.doneDetail ?? step.row.detail };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401 || error.status >= 500 || error.status === 429) throw error;
    if (error.status === 404 || /already revoked/i.test(error.message)) return { ...step.row, status: 'gone', detail: 'gone already' };
    return { ...step.row, status: 'failed', detail: error.message };
  }
}

export default defineCommand<Options>({
  effect: 'destructive',
  recordFields: ROW_FIELDS,
  ownRecords: true,
  description: [
    'Takes a departing user\'s access away as one reviewed operation (administrators). It reads everything first, shows the',
    'plan, and asks (--yes off a terminal): keeps the user out (--mode block, the default; deactivate; or ban), removes',
    'each direct membership of groups and projects, revokes their personal access tokens and impersonation tokens, and',
    'deletes their SSH and GPG keys (commits they signed stay verified); --keep leaves some of these alone. A group they',
    'alone own cannot lose its owner: the plan names it and how to fix it, and --transfer-to USER makes that user its',
    'Owner first. Their account, personal projects and contributions stay (forgectl users delete removes the account).',
    '--plan-only prints the plan and exits 9 when there is something to do; --dry-run prints it and exits 0. Running it',
    'again is safe: what is gone is not sent again, and a run that was cut short is finished. A bot user (of an access',
    'token, or a service account) is refused: revoke its token (forgectl tokens revoke) instead.',
  ].join(' '),
  examples: [
    'forgectl users offboard omar --dry-run',
    'forgectl users offboard omar --yes',
    'forgectl users offboard priya --transfer-to alice --keep gpg-keys --yes',
    'forgectl users offboard omar --plan-only -o json',
  ],
  args: [userArg],
  options: [
    { flags: '--mode <mode>', description: 'how the user is kept out: block, deactivate (only users inactive for 90 days) or ban', parse: parseChoice('--mode', MODES), default: 'block' },
    {
      flags: '--keep <parts>',
      description: `what to leave alone, comma-separated: ${PARTS.join(', ')} (default: take everything away)`,
      parse: parseChoiceList('--keep', PARTS),
    },
    { flags: '--transfer-to <user>', description: 'the user who becomes Owner of the groups the departing user alone owns' },
    { flags: '--plan-only', description: 'print the plan and change nothing: exit 9 when there is something to do, 0 when nothing' },
  ],
  columns: ['action', 'target', 'status', 'detail'],
  exits: { 9: 'something is left to do: with --plan-only, the plan is not empty; otherwise a step failed or a group has no other owner' },
  async run(opts, ctx) {
    const found = await survey(ctx, { user: opts.user, mode: opts.mode, keep: opts.keep ?? [], transferTo: opts.transferTo });
    const steps = stepsOf(found);
    const cannot = cannotRows(found);
    showPlan(ctx, found, steps, cannot, Boolean(opts.planOnly || ctx.globals.dryRun) && ctx.format === 'table' && ctx.io.stdoutIsTTY);
    const plan = [...steps.map((s) => s.row), ...cannot];
    if (opts.planOnly) return steps.length || cannot.length ? new ResultWithExit(plan, ExitCode.attention, `attention: ${plural(steps.length, 'change')} to make${cannot.length ? `, ${cannot.length} that cannot be made` : ''}`) : nothing(ctx);
    if (ctx.globals.dryRun) return plan;
    if (!steps.length) return finish(ctx, found, cannot, 'nothing to do');
    await ctx.confirm(`Offboard ${found.user.username}: ${summary(steps.map((s) => s.row))}?`);
    const rows: Row[] = [];
    ctx.io.state.interruptReport = () => [`offboarding ${found.user.username}: ${rows.length} of ${steps.length} steps done; run the same command again to finish`];
    const notHanded: string[] = [];
    for (const step of steps) {
      // A group whose handing over failed keeps its only owner: leaving it would leave nobody to manage it.
      const kept = step.soleOwned === undefined ? undefined : notHanded.find((path) => step.soleOwned === path || step.soleOwned!.startsWith(`${path}/`));
      const row = kept === undefined ? await send(ctx.api, step) : { ...step.row, status: 'failed' as const, detail: `not sent: ${found.heir!.username} did not become Owner of ${kept}, and ${found.user.username} is its only owner` };
      if (row.status === 'failed' && step.handsOver !== undefined) notHanded.push(step.handsOver);
      rows.push(row);
    }
    const failed = rows.filter((r) => r.status === 'failed');
    if (failed.length) return new ResultWithExit([...rows, ...cannot], ExitCode.attention, `attention: ${plural(failed.length, 'step')} failed: ${failed.map((r) => `${r.action} ${r.target}`).join('; ')}`);
    return finish(ctx, found, [...rows, ...cannot], `offboarded ${found.user.username}: ${summary(rows.filter((r) => r.status === 'done'))}`);
  },
});

/** The end of a run: exit 9 while a group the user alone owns keeps them, else 0 with what was done. */
function finish(ctx: Context, found: Survey, rows: Row[], done: string): unknown {
  const cannot = rows.filter((r) => r.status === 'cannot');
  if (cannot.length) return new ResultWithExit(rows, ExitCode.attention, `attention: ${found.user.username} still owns ${cannot.map((r) => r.target.replace(/^group /, '')).join(', ')} alone; hand ${cannot.length > 1 ? 'them' : 'it'} over with --transfer-to USER`);
  ctx.io.note(done);
  return rows.length ? rows : nothing(ctx);
}

/** Nothing to do: an empty list for scripts (-o json and the like); a table adds nothing to what the plan said. */
const nothing = (ctx: Context): unknown => (ctx.format === 'table' ? undefined : []);
