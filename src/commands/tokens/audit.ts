import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { deployTokens } from '../../resources/deploy-tokens/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { groups } from '../../resources/groups/resource.js';
import { serviceAccounts } from '../../resources/service-accounts/resource.js';
import { users } from '../../resources/users/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { accessLevelName, collect, parseDuration, plural } from '../../parse.js';
import { concurrencyOption, DEFAULT_CONCURRENCY, shardOptions } from '../../cli/fleet-options.js';
import type { FleetRun } from '../../fleet/select.js';
import { emptyShardLine, resolveShard, startBudget, takeShard, type Shard } from '../../fleet/shard.js';
import { ResultWithExit, Summarised } from '../../output/result.js';
import { daysLeft, isoDay, TokenTarget } from './shared.js';
import { rotateSelfCommand } from '../auth/status.js';

interface Options extends Pick<FleetRun, 'shard' | 'shardTotal' | 'rateLimit'> {
  group?: string[];
  project?: string[];
  expiringWithin?: string;
  unusedFor?: string;
  personal: boolean;
  instance?: boolean;
  concurrency?: number;
}

/**
 * What a list holds: access tokens of a group or project, personal tokens, a user's impersonation tokens, a service
 * account's tokens, deploy tokens.
 */
type ListKind = 'access' | 'personal' | 'impersonation' | 'service-account' | 'deploy';

/**
 * One token list to read: its declared route and the parameters that name where (the group, the project, the user),
 * its label (`group acme`, `project acme/api`, `personal`, `user alice`), its kind.
 */
interface TokenList {
  route: string;
  params: Record<string, string | number>;
  label: string;
  kind: ListKind;
  /** The user whose impersonation tokens these are. */
  userId?: number;
  /** The options that name a service account's tokens (`--service-account ci-bot --group acme`). */
  flags?: string;
}

/** Lists of one user's tokens also seen in the personal list: their token keeps this, the more precise, source. */
const precise = (list: TokenList): boolean => list.kind === 'impersonation' || list.kind === 'service-account';

/** The access tokens of a group or project (by id or path), or the personal ones. */
function accessList(kind: 'group' | 'project' | 'personal', where: string, label: string): TokenList {
  return { route: accessTokens.parents[kind].routes.list, params: kind === 'personal' ? {} : { [kind]: where }, label, kind: kind === 'personal' ? 'personal' : 'access' };
}

/** The deploy tokens of a group or project (by id), still active. */
function deployList(kind: 'group' | 'project', id: number, path: string): TokenList {
  return { route: deployTokens.parents[kind].routes.list, params: { [kind]: String(id) }, label: `${kind} ${path}`, kind: 'deploy' };
}

/**
 * Every group and project of the instance (an administrator sees them all), as token lists to read, and the
 * impersonation tokens of every user (they are personal tokens an administrator made to act as that user).
 */
async function instanceLists(ctx: Context): Promise<TokenList[]> {
  const user = await ctx.api.call<{ is_admin?: boolean; username?: string }>(users.routes.current);
  if (!user.is_admin) throw new CliError('tokens audit --instance is for administrators', ExitCode.auth, 'name the groups and projects to check with --group and --project');
  const lists: TokenList[] = await serviceAccountLists(ctx);
  const topLevel: string[] = [];
  for await (const group of ctx.api.list<{ id: number; full_path: string; parent_id?: number | null }>(groups.routes.list, { all_available: true, order_by: 'id', sort: 'asc' }, { all: true })) {
    lists.push(accessList('group', String(group.id), `group ${group.full_path}`), deployList('group', group.id, group.full_path));
    if (!group.parent_id) topLevel.push(group.full_path);
  }
  for (const group of topLevel) lists.push(...await serviceAccountLists(ctx, group));
  const everyProject = ctx.api.list<{ id: number; path_with_namespace: string }>(projects.routes.list, { simple: true, order_by: 'id', sort: 'asc' }, { all: true, keysetAfter: (last) => ({ id_after: last.id }) });
  for await (const project of everyProject) {
    lists.push(accessList('project', String(project.id), `project ${project.path_with_namespace}`), deployList('project', project.id, project.path_with_namespace));
  }
  const everyone = ctx.api.list<{ id: number; username: string }>(users.routes.list, { without_project_bots: true, order_by: 'id', sort: 'asc' }, { all: true, keysetAfter: (last) => ({ id_after: last.id }) });
  for await (const one of everyone) lists.push({ route: impersonationTokens.routes.list, params: { user: one.id }, label: `user ${one.username}`, kind: 'impersonation', userId: one.id });
  return lists;
}

/**
 * The token lists of the service accounts of the instance, or of a top-level group: none where the tier has none or
 * the caller may not manage them (403), or the group has none of its own (a subgroup: 400, 404).
 */
async function serviceAccountLists(ctx: Context, group?: string): Promise<TokenList[]> {
  const lists: TokenList[] = [];
  const [route, params] = group === undefined ? [serviceAccounts.parents.instance.routes.list, {}] : [serviceAccounts.parents.group.routes.list, { group }];
  try {
    for await (const account of ctx.api.list<{ id: number; username: string }>(route, params, { all: true, perPage: 100 })) {
      const target = new TokenTarget('service-account', group ?? '', account.username, account);
      lists.push({ route: target.route('list'), params: target.params(), label: target.label, kind: 'service-account', flags: target.flags });
    }
  } catch (error) {
    if (!(error instanceof ApiError) || ![400, 403, 404].includes(error.status)) throw error;
  }
  return lists;
}

/**
 * The command that deals with a finding: rotate what expires, revoke what nobody uses. The token in use rotates as
 * `self` (through its group's or project's endpoint when it is a group or project token), so that the profile
 * that holds it gets the new one.
 */
function fixFor(list: TokenList | 'self', token: TokenRecord, unused: boolean, rotateSelf: string | undefined): string {
  if (list === 'self' && rotateSelf && !unused) return `${rotateSelf} --expires-in 90d --yes`;
  if (list === 'self' || list.kind === 'personal') return unused ? `forgectl tokens revoke ${token.id} --personal --yes` : `forgectl tokens rotate ${token.id} --personal --expires-in 90d --yes`;
  // Impersonation tokens are not rotated by the service: revoke, and create another if it is still needed.
  if (list.kind === 'impersonation') return `forgectl tokens revoke ${token.id} --personal --user ${list.label.slice('user '.length)} --impersonation --yes`;
  if (list.kind === 'deploy') return `forgectl deploy-tokens revoke ${token.id} --${list.label} --yes`;
  const flags = list.flags ?? `--${list.label}`;
  return unused ? `forgectl tokens revoke ${token.id} ${flags} --yes` : `forgectl tokens rotate ${token.id} ${flags} --expires-in 90d --yes`;
}


export default defineCommand<Options>({
  description: [
    'Looks at the token in use, the group and project tokens of every --group and --project (and the tokens of a --group\'s',
    'service accounts, for its Owners), and the personal tokens',
    'the caller may list (their own; every user\'s for administrators). Shows the active ones expiring within the',
    'window (--expiring-within, 30d unless --unused-for is given alone), soonest first, and with --unused-for the ones',
    'not used for that long (never used since created that long ago counts), each with the command that fixes it',
    '(FIX). Exit 9 when anything is found, 0 otherwise: made for cron and monitoring. Administrators can check every',
    'group and project of the instance, their deploy tokens (for expiry: the service does not say when one was used), the tokens of',
    'every service account (the instance\'s and each top-level group\'s), and every user\'s impersonation tokens, with --instance (--concurrency at a',
    'time, through one shared rate limit); a list that cannot be read is named on stderr and also exits 9.',
  ].join(' '),
  exits: { 9: 'tokens expire within the window, or a list of tokens could not be read' },
  examples: [
    'forgectl tokens audit --expiring-within 14d',
    'forgectl tokens audit --group acme --project acme/api --expiring-within 30d -o json',
    'forgectl tokens audit --group acme --unused-for 90d',
    'forgectl -p bot tokens audit --expiring-within 7d --no-personal || notify-admins',
    'forgectl -p admin tokens audit --instance --concurrency 16 --expiring-within 14d --unused-for 90d -o json',
  ],
  options: [
    { flags: '--group <id|path>', description: 'also the access tokens of this group, and of its service accounts (repeatable)', parse: collect },
    { flags: '--project <id|path>', description: 'also the access tokens of this project (repeatable)', parse: collect },
    { flags: '--expiring-within <duration>', description: 'window from now: 30d, 2w, 12h (default 30d, unless only --unused-for is given)', parse: (v: string) => (parseDuration('--expiring-within')(v), v) },
    { flags: '--unused-for <duration>', description: 'also tokens not used for this long, or never used since created that long ago: 90d', parse: (v: string) => (parseDuration('--unused-for')(v), v) },
    { flags: '--no-personal', description: 'skip the list of personal tokens' },
    { flags: '--instance', description: 'every group, project, service account and user\'s impersonation tokens of the instance (administrators)' },
    concurrencyOption,
    ...shardOptions,
  ],
  columns: ['finding', 'days_left', 'expires_at', 'last_used_at', 'source', 'id', 'name', 'scopes', 'access_level_name', 'self', 'fix'],
  async run(opts, ctx) {
    checkOptions(opts);
    const expiring = opts.expiringWithin ?? (opts.unusedFor === undefined ? '30d' : undefined);
    const findings = new Findings(ctx.now(), expiring, opts.unusedFor);
    // A shard of a parallel job reads its part of the instance's groups and projects; the first also the caller's own lists.
    const shard = opts.instance ? resolveShard(opts, ctx.env) : undefined;
    const first = !shard || shard.index === 1;
    let caller: number | undefined;
    try {
      const self = await ctx.api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
      caller = self.user_id;
      // Other shards only know it, so that it is not shown again under the project or group that holds it.
      if (first) {
        findings.rotateSelf = await rotateSelfOf(ctx);
        findings.consider(self, 'self');
      }
      else findings.knowSelf(self);
    } catch (error) {
      // Job and OAuth tokens have no record of their own; the lists below still count.
      if (!(error instanceof ApiError) || ![403, 404, 405].includes(error.status)) throw error;
    }
    const lists = await listsToRead(opts, ctx, shard, first);
    if (shard && !lists.length) {
      ctx.io.note(emptyShardLine(shard));
      return [];
    }
    const concurrency = opts.concurrency ?? (opts.instance ? DEFAULT_CONCURRENCY : 1);
    if (opts.instance) {
      const budget = startBudget(ctx.rateGate, concurrency, opts.rateLimit, shard);
      if (budget) ctx.io.note(budget);
    }
    const unreadable = await readLists(ctx, lists, concurrency, findings, Boolean(opts.instance));
    for (const line of unreadable) ctx.io.warn(`could not read the tokens of ${line}`);
    await nameOwners(ctx, findings.rows(), caller);
    return auditResult(ctx, findings, { what: findings.words(expiring, opts.unusedFor), scope: opts.instance ? instanceScope(lists) : '', unreadable: unreadable.length });
  },
});

/** The command that rotates the token in use, when GET /user says whose it is (a token may lack the scope to ask). */
async function rotateSelfOf(ctx: Context): Promise<string | undefined> {
  try {
    return rotateSelfCommand(await ctx.api.call<{ username: string; bot?: boolean }>(users.routes.current), ctx.connection());
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  }
}

/** The options that go together, checked before anything is sent. */
function checkOptions(opts: Options): void {
  if (!opts.instance && (opts.shard || opts.shardTotal !== undefined || opts.rateLimit)) throw new UsageError('--shard and --rate-limit go with --instance');
  if (opts.instance && (opts.group || opts.project)) throw new UsageError('--instance checks every group and project already; leave out --group and --project');
  if (opts.concurrency !== undefined && !opts.instance) throw new UsageError('--concurrency goes with --instance');
}

/** The token lists to read: the instance's (this shard's part of them) or those named, and the caller's personal ones. */
async function listsToRead(opts: Options, ctx: Context, shard: Shard | undefined, first: boolean): Promise<TokenList[]> {
  let lists: TokenList[] = opts.instance
    ? await instanceLists(ctx)
    : [
        ...(opts.group ?? []).map((g) => accessList('group', g, `group ${g}`)),
        ...(opts.project ?? []).map((pr) => accessList('project', pr, `project ${pr}`)),
        ...(await Promise.all((opts.group ?? []).map((g) => serviceAccountLists(ctx, g)))).flat(),
      ];
  if (shard) lists = takeShard(lists, (list) => list.label.replace(/^(group|project) /, ''), shard, (line) => ctx.io.note(line), 'token lists');
  if (opts.personal && first) lists.push(accessList('personal', '', 'personal'));
  return lists;
}

/**
 * Reads the lists, `concurrency` at a time, into the findings. Returns the lists that could not be read (with
 * --instance; outside it every list was asked for by name, and its failure is the command's).
 */
async function readLists(ctx: Context, lists: TokenList[], concurrency: number, findings: Findings, instance: boolean): Promise<string[]> {
  const unreadable: string[] = [];
  const { orderedPool } = await import('../../fleet/pool.js');
  const read = async (list: TokenList): Promise<TokenRecord[]> => {
    const tokens: TokenRecord[] = [];
    for await (const token of ctx.api.list<TokenRecord>(list.route, { ...list.params, ...(list.kind === 'deploy' ? { active: true } : { state: 'active' }) }, { all: true })) tokens.push(token);
    return tokens;
  };
  // In the lists' order whatever the timing: the same token seen twice keeps the source it was first seen under
  // (an impersonation token, or a service account's, is listed after the personal tokens, and keeps the more
  // precise source).
  const preciseLast = [...lists.filter((l) => !precise(l)), ...lists.filter(precise)];
  for await (const outcome of orderedPool(preciseLast, concurrency, read)) {
    if (outcome.status === 'ok') findings.considerList(outcome.value, outcome.item);
    else if (outcome.status === 'failed') {
      if (!instance || !(outcome.error instanceof ApiError) || outcome.error.status === 401) throw explainedRefusal(outcome.error, outcome.item);
      unreadable.push(`${outcome.item.label}: ${outcome.error.message} (${outcome.error.status})`);
    }
  }
  return unreadable;
}

/**
 * A list named by --group or --project that the caller may not read (403): the role it needs, and what the audit
 * does without it (a bot's own token is checked as the token in use).
 */
function explainedRefusal(error: unknown, list: TokenList): unknown {
  if (!(error instanceof ApiError) || error.status !== 403 || list.kind !== 'access') return error;
  const [kind] = list.label.split(' ');
  return error.explained(
    `${error.message}: the access tokens of ${list.label} are listed only for its ${kind === 'group' ? 'Owners' : 'Maintainers'}`,
    `leave out --${kind} ${list.label.slice(kind.length + 1)} to audit the token in use alone, or run the audit with a token of an ${kind === 'group' ? 'Owner' : 'Maintainer'}`,
  );
}

/**
 * "personal, of dana": whose each personal token found is, where it is not the caller's (an administrator's personal
 * list holds every user's); one read per owner, of the tokens found only.
 */
async function nameOwners(ctx: Context, rows: Array<Record<string, unknown>>, caller: number | undefined): Promise<void> {
  const names = new Map<number, Promise<string>>();
  for (const row of rows.filter((r) => r.source === 'personal' && typeof r.user_id === 'number' && r.user_id !== caller)) {
    const id = row.user_id as number;
    if (!names.has(id)) names.set(id, ctx.api.call<{ username: string }>(users.routes.get, { user: id }).then((user) => user.username));
    row.source = `personal, of ${await names.get(id)}`;
  }
}

/**
 * " in 1,234 token lists of the instance, their deploy tokens, the tokens of 3 service accounts and the impersonation
 * tokens of 56 users"
 */
function instanceScope(lists: TokenList[]): string {
  const count = (kind: ListKind): number => lists.filter((l) => l.kind === kind).length;
  const [accessLists, users, deploy, accounts] = [count('access'), count('impersonation'), count('deploy'), count('service-account')];
  return ` in ${accessLists.toLocaleString('en-US')} token lists of the instance${deploy ? `, their deploy tokens` : ''}${accounts ? `, the tokens of ${plural(accounts, 'service account')}` : ''}${users ? ` and the impersonation tokens of ${plural(users, 'user')}` : ''}`;
}

/** The findings, soonest expiry first, and the line that sums them up: exit 9 when any is found or a list was not read. */
function auditResult(ctx: Context, findings: Findings, { what, scope, unreadable }: { what: string; scope: string; unreadable: number }): unknown {
  const rows = findings.rows();
  const unread = unreadable ? `; ${plural(unreadable, 'list')} could not be read` : '';
  if (!rows.length) {
    if (unreadable) return new ResultWithExit(rows, ExitCode.attention, `attention: no token ${what}; checked ${findings.checked}${scope}${unread}`);
    return new Summarised(rows, `no token ${what}; checked ${findings.checked}${scope}`);
  }
  const count = plural(rows.length, 'token');
  const verb = rows.length === 1 ? what : what.replace(/^expires/, 'expire').replace('was unused', 'were unused');
  return new ResultWithExit(rows, ExitCode.attention, `attention: ${count} ${verb}${scope}${unread}; FIX (-o json: fix) is the command that deals with each`);
}

/** The tokens found expiring within the window or unused for too long, each once, with where it was first seen. */
class Findings {
  /** How many tokens were looked at. */
  checked = 0;
  /** The command that rotates the token in use, without its expiry (`forgectl -p bot tokens rotate self --group 7`). */
  rotateSelf?: string;
  private readonly found = new Map<string, Record<string, unknown>>();
  /** The personal tokens seen in the caller's personal list (an impersonation token, or a service account's, seen again keeps that source). */
  private readonly fromPersonal = new Set<number>();
  private readonly lastDay?: string;
  private readonly unusedSince?: string;

  constructor(
    private readonly now: Date,
    expiring: string | undefined,
    unusedFor: string | undefined,
  ) {
    const windowMs = expiring === undefined ? undefined : parseDuration('--expiring-within')(expiring);
    const unusedMs = unusedFor === undefined ? undefined : parseDuration('--unused-for')(unusedFor);
    this.lastDay = windowMs === undefined ? undefined : isoDay(new Date(now.getTime() + windowMs));
    this.unusedSince = unusedMs === undefined ? undefined : new Date(now.getTime() - unusedMs).toISOString();
  }

  /** "expires within 30d (by 2026-12-29) or was unused for 90d" */
  words(expiring: string | undefined, unusedFor: string | undefined): string {
    return [expiring !== undefined ? `expires within ${expiring} (by ${this.lastDay})` : '', unusedFor !== undefined ? `was unused for ${unusedFor}` : ''].filter(Boolean).join(' or ');
  }

  /** The token in use, known (so that it is not shown again under the list that holds it) but not shown here. */
  knowSelf(token: TokenRecord): void {
    this.found.set(keyOf('self', token.id), {});
  }

  considerList(tokens: TokenRecord[], list: TokenList): void {
    for (const token of tokens) {
      if (precise(list) && this.fromPersonal.has(token.id)) this.found.delete(keyOf(list, token.id));
      if (list.kind === 'personal' && !this.found.has(keyOf(list, token.id))) this.fromPersonal.add(token.id);
      this.consider(token, list);
    }
  }

  consider(token: TokenRecord, list: TokenList | 'self'): void {
    this.checked++;
    const self = list === 'self';
    const known = this.found.get(keyOf(list, token.id));
    if (known) {
      if (self) known.self = true;
      return;
    }
    if (token.revoked || token.active === false || token.expired === true) return;
    const expires = this.lastDay !== undefined && Boolean(token.expires_at) && token.expires_at!.slice(0, 10) <= this.lastDay;
    // Deploy tokens say nothing of their use: they are checked for expiry only.
    const lastActivity = list !== 'self' && list.kind === 'deploy' ? undefined : token.last_used_at ?? token.created_at;
    const unused = this.unusedSince !== undefined && typeof lastActivity === 'string' && lastActivity < this.unusedSince;
    if (!expires && !unused) return;
    this.found.set(keyOf(list, token.id), this.row(token, list, expires, unused));
  }

  rows(): Array<Record<string, unknown>> {
    return [...this.found.values()].filter((row) => row.id !== undefined).sort((a, b) => String(a.expires_at ?? '~').localeCompare(String(b.expires_at ?? '~')) || Number(a.id) - Number(b.id));
  }

  private row(token: TokenRecord, list: TokenList | 'self', expires: boolean, unused: boolean): Record<string, unknown> {
    const now = this.now;
    const self = list === 'self';
    const findings = [
      expires ? `expires in ${plural(daysLeft(token.expires_at!, now), 'day')}` : '',
      unused ? (token.last_used_at ? `unused for ${plural(daysSince(token.last_used_at, now), 'day')}` : `never used in ${plural(daysSince(String(token.created_at), now), 'day')}`) : '',
    ].filter(Boolean);
    return {
      finding: findings.join('; '),
      days_left: token.expires_at ? daysLeft(token.expires_at, now) : null,
      expires_at: token.expires_at ?? null,
      last_used_at: token.last_used_at ?? null,
      source: self ? 'self' : list.kind === 'impersonation' ? `impersonation ${list.label.slice('user '.length)}` : list.kind === 'deploy' ? `deploy token, ${list.label}` : list.label,
      id: token.id,
      name: token.name,
      scopes: token.scopes,
      access_level_name: token.access_level === undefined ? null : accessLevelName(token.access_level),
      user_id: token.user_id,
      self,
      fix: fixFor(list, token, unused, this.rotateSelf),
    };
  }
}

/** Deploy tokens number apart from the other tokens (which share one sequence). */
const keyOf = (list: TokenList | 'self', id: number): string => `${list !== 'self' && list.kind === 'deploy' ? 'deploy' : 'pat'}:${id}`;

/** Whole days since a time. */
function daysSince(time: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(time)) / 86_400_000);
}
