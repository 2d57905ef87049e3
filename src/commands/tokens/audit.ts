import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { accessTokens, impersonationTokens } from '../../resources/access-tokens/resource.js';
import { deployTokens } from '../../resources/deploy-tokens/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { groups } from '../../resources/groups/resource.js';
import { users } from '../../resources/users/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { accessLevelName, collect, parseDuration, plural } from '../../parse.js';
import { concurrencyOption, DEFAULT_CONCURRENCY, shardOptions } from '../../cli/fleet-options.js';
import type { FleetRun } from '../../fleet/select.js';
import { emptyShardLine, resolveShard, startBudget, takeShard } from '../../fleet/shard.js';
import { ResultWithExit } from '../../output/result.js';
import { daysLeft, isoDay } from './shared.js';

interface Options extends Pick<FleetRun, 'shard' | 'shardTotal' | 'rateLimit'> {
  group?: string[];
  project?: string[];
  expiringWithin?: string;
  unusedFor?: string;
  personal: boolean;
  instance?: boolean;
  concurrency?: number;
}

/** What a list holds: access tokens of a group or project, personal tokens, a user's impersonation tokens, deploy tokens. */
type ListKind = 'access' | 'personal' | 'impersonation' | 'deploy';

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
}

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
  const lists: TokenList[] = [];
  for await (const group of ctx.api.list<{ id: number; full_path: string }>(groups.routes.list, { all_available: true, order_by: 'id', sort: 'asc' }, { all: true })) {
    lists.push(accessList('group', String(group.id), `group ${group.full_path}`), deployList('group', group.id, group.full_path));
  }
  const everyProject = ctx.api.list<{ id: number; path_with_namespace: string }>(projects.routes.list, { simple: true, order_by: 'id', sort: 'asc' }, { all: true, keysetAfter: (last) => ({ id_after: last.id }) });
  for await (const project of everyProject) {
    lists.push(accessList('project', String(project.id), `project ${project.path_with_namespace}`), deployList('project', project.id, project.path_with_namespace));
  }
  const everyone = ctx.api.list<{ id: number; username: string }>(users.routes.list, { without_project_bots: true, order_by: 'id', sort: 'asc' }, { all: true, keysetAfter: (last) => ({ id_after: last.id }) });
  for await (const one of everyone) lists.push({ route: impersonationTokens.routes.list, params: { user: one.id }, label: `user ${one.username}`, kind: 'impersonation', userId: one.id });
  return lists;
}

/** The command that deals with a finding: rotate what expires, revoke what nobody uses. */
function fixFor(list: TokenList | 'self', token: TokenRecord, unused: boolean): string {
  if (list === 'self' || list.kind === 'personal') return unused ? `forgectl tokens revoke ${token.id} --personal --yes` : `forgectl tokens rotate ${token.id} --personal --expires-in 90d --yes`;
  // Impersonation tokens are not rotated by the service: revoke, and create another if it is still needed.
  if (list.kind === 'impersonation') return `forgectl tokens revoke ${token.id} --personal --user ${list.label.slice('user '.length)} --impersonation --yes`;
  if (list.kind === 'deploy') return `forgectl deploy-tokens revoke ${token.id} --${list.label} --yes`;
  const flags = `--${list.label}`;
  return unused ? `forgectl tokens revoke ${token.id} ${flags} --yes` : `forgectl tokens rotate ${token.id} ${flags} --expires-in 90d --yes`;
}


export default defineCommand<Options>({
  description: [
    'Looks at the token in use, the group and project tokens of every --group and --project, and the personal tokens',
    'the caller may list (their own; every user\'s for administrators). Shows the active ones expiring within the',
    'window (--expiring-within, 30d unless --unused-for is given alone), soonest first, and with --unused-for the ones',
    'not used for that long (never used since created that long ago counts), each with the command that fixes it',
    '(FIX). Exit 9 when anything is found, 0 otherwise: made for cron and monitoring. Administrators can check every',
    'group and project of the instance, their deploy tokens (for expiry: the service does not say when one was used), and every user\'s impersonation tokens, with --instance (--concurrency at a',
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
    { flags: '--group <id|path>', description: 'also the access tokens of this group (repeatable)', parse: collect },
    { flags: '--project <id|path>', description: 'also the access tokens of this project (repeatable)', parse: collect },
    { flags: '--expiring-within <duration>', description: 'window from now: 30d, 2w, 12h (default 30d, unless only --unused-for is given)', parse: (v: string) => (parseDuration('--expiring-within')(v), v) },
    { flags: '--unused-for <duration>', description: 'also tokens not used for this long, or never used since created that long ago: 90d', parse: (v: string) => (parseDuration('--unused-for')(v), v) },
    { flags: '--no-personal', description: 'skip the list of personal tokens' },
    { flags: '--instance', description: 'every group, project and user\'s impersonation tokens of the instance (administrators)' },
    concurrencyOption,
    ...shardOptions,
  ],
  columns: ['finding', 'days_left', 'expires_at', 'last_used_at', 'source', 'id', 'name', 'scopes', 'access_level_name', 'self', 'fix'],
  async run(opts, ctx) {
    const expiring = opts.expiringWithin ?? (opts.unusedFor === undefined ? '30d' : undefined);
    const windowMs = expiring === undefined ? undefined : parseDuration('--expiring-within')(expiring);
    const unusedMs = opts.unusedFor === undefined ? undefined : parseDuration('--unused-for')(opts.unusedFor);
    const now = ctx.now();
    const lastDay = windowMs === undefined ? undefined : isoDay(new Date(now.getTime() + windowMs));
    const unusedSince = unusedMs === undefined ? undefined : new Date(now.getTime() - unusedMs).toISOString();
    // Deploy tokens number apart from the other tokens (which share one sequence).
    const found = new Map<string, Record<string, unknown>>();
    const keyOf = (list: TokenList | 'self', id: number): string => `${list !== 'self' && list.kind === 'deploy' ? 'deploy' : 'pat'}:${id}`;
    let checked = 0;
    const consider = (token: TokenRecord, list: TokenList | 'self'): void => {
      checked++;
      const self = list === 'self';
      const known = found.get(keyOf(list, token.id));
      if (known) {
        if (self) known.self = true;
        return;
      }
      if (token.revoked || token.active === false || token.expired === true) return;
      const expires = lastDay !== undefined && Boolean(token.expires_at) && token.expires_at!.slice(0, 10) <= lastDay;
      // Deploy tokens say nothing of their use: they are checked for expiry only.
      const lastActivity = list !== 'self' && list.kind === 'deploy' ? undefined : token.last_used_at ?? token.created_at;
      const unused = unusedSince !== undefined && typeof lastActivity === 'string' && lastActivity < unusedSince;
      if (!expires && !unused) return;
      const findings = [
        expires ? `expires in ${plural(daysLeft(token.expires_at!, now), 'day')}` : '',
        unused ? (token.last_used_at ? `unused for ${plural(daysSince(token.last_used_at, now), 'day')}` : `never used in ${plural(daysSince(String(token.created_at), now), 'day')}`) : '',
      ].filter(Boolean);
      found.set(keyOf(list, token.id), {
        finding: findings.join('; '),
        days_left: token.expires_at ? daysLeft(token.expires_at, now) : null,
        expires_at: token.expires_at ?? null,
        last_used_at: token.last_used_at ?? null,
        source: self ? 'self' : list.kind === 'impersonation' ? `impersonation ${list.label.slice('user '.length)}` : list.kind === 'deploy' ? `deploy token, ${list.label}` : list.label,
        id: token.id,
        name: token.name,
        scopes: token.scopes,
        access_level_name: accessLevelName(token.access_level),
        user_id: token.user_id,
        self,
        fix: fixFor(list, token, unused),
      });
    };

    if (!opts.instance && (opts.shard || opts.shardTotal !== undefined || opts.rateLimit)) throw new UsageError('--shard and --rate-limit go with --instance');
    // A shard of a parallel job reads its part of the instance's groups and projects; the first also the caller's own lists.
    const shard = opts.instance ? resolveShard(opts, ctx.env) : undefined;
    const first = !shard || shard.index === 1;
    try {
      const self = await ctx.api.call<TokenRecord>(accessTokens.parents.personal.routes.get, { token_id: 'self' });
      // Other shards only know it, so that it is not shown again under the project or group that holds it.
      if (first) consider(self, 'self');
      else found.set(keyOf('self', self.id), {});
    } catch (error) {
      // Job and OAuth tokens have no record of their own; the lists below still count.
      if (!(error instanceof ApiError) || ![403, 404, 405].includes(error.status)) throw error;
    }
    if (opts.instance && (opts.group || opts.project)) throw new UsageError('--instance checks every group and project already; leave out --group and --project');
    if (opts.concurrency !== undefined && !opts.instance) throw new UsageError('--concurrency goes with --instance');
    const lists: TokenList[] = opts.instance
      ? await instanceLists(ctx)
      : [
          ...(opts.group ?? []).map((g) => accessList('group', g, `group ${g}`)),
          ...(opts.project ?? []).map((pr) => accessList('project', pr, `project ${pr}`)),
        ];
    if (shard) {
      const mine = takeShard(lists, (list) => list.label.replace(/^(group|project) /, ''), shard, (line) => ctx.io.note(line), 'token lists');
      lists.splice(0, lists.length, ...mine);
    }
    if (opts.personal && first) lists.push(accessList('personal', '', 'personal'));
    if (shard && !lists.length) {
      ctx.io.note(emptyShardLine(shard));
      return [];
    }
    const concurrency = opts.concurrency ?? (opts.instance ? DEFAULT_CONCURRENCY : 1);
    if (opts.instance) {
      const budget = startBudget(ctx.rateGate, concurrency, opts.rateLimit, shard);
      if (budget) ctx.io.note(budget);
    }
    const unreadable: string[] = [];
    const { orderedPool } = await import('../../fleet/pool.js');
    const read = async (list: TokenList): Promise<TokenRecord[]> => {
      const tokens: TokenRecord[] = [];
      for await (const token of ctx.api.list<TokenRecord>(list.route, { ...list.params, ...(list.kind === 'deploy' ? { active: true } : { state: 'active' }) }, { all: true })) tokens.push(token);
      return tokens;
    };
    // In the lists' order whatever the timing: the same token seen twice keeps the source it was first seen under
    // (an impersonation token is listed after the personal tokens, and keeps the more precise source).
    const impersonationLast = [...lists.filter((l) => l.kind !== 'impersonation'), ...lists.filter((l) => l.kind === 'impersonation')];
    const fromPersonal = new Set<number>();
    for await (const outcome of orderedPool(impersonationLast, concurrency, read)) {
      const list = outcome.item;
      if (outcome.status === 'ok') {
        for (const token of outcome.value) {
          if (list.kind === 'impersonation' && fromPersonal.has(token.id)) found.delete(keyOf(list, token.id));
          if (list.kind === 'personal' && !found.has(keyOf(list, token.id))) fromPersonal.add(token.id);
          consider(token, list);
        }
      } else if (outcome.status === 'failed') {
        // Outside --instance every list was asked for by name: its failure is the command's.
        if (!opts.instance || !(outcome.error instanceof ApiError) || outcome.error.status === 401) throw outcome.error;
        unreadable.push(`${list.label}: ${outcome.error.message} (${outcome.error.status})`);
      }
    }
    for (const line of unreadable) ctx.io.warn(`could not read the tokens of ${line}`);

    const rows = [...found.values()].filter((row) => row.id !== undefined).sort((a, b) => String(a.expires_at ?? '~').localeCompare(String(b.expires_at ?? '~')) || Number(a.id) - Number(b.id));
    const what = [
      expiring !== undefined ? `expires within ${expiring} (by ${lastDay})` : '',
      opts.unusedFor !== undefined ? `was unused for ${opts.unusedFor}` : '',
    ].filter(Boolean).join(' or ');
    const accessLists = lists.filter((l) => l.kind === 'access').length;
    const users = lists.filter((l) => l.kind === 'impersonation').length;
    const deploy = lists.filter((l) => l.kind === 'deploy').length;
    const scope = opts.instance
      ? ` in ${accessLists.toLocaleString('en-US')} token lists of the instance${deploy ? `, their deploy tokens` : ''}${users ? ` and the impersonation tokens of ${plural(users, 'user')}` : ''}`
      : '';
    const unread = unreadable.length ? `; ${plural(unreadable.length, 'list')} could not be read` : '';
    if (!rows.length) {
      if (unreadable.length) return new ResultWithExit(rows, ExitCode.attention, `attention: no token ${what}; checked ${checked}${scope}${unread}`);
      ctx.io.note(`no token ${what}; checked ${checked}${scope}`);
      return rows;
    }
    const count = plural(rows.length, 'token');
    const verb = rows.length === 1 ? what : what.replace(/^expires/, 'expire');
    return new ResultWithExit(rows, ExitCode.attention, `attention: ${count} ${verb}${scope}${unread}; FIX (-o json: fix) is the command that deals with each`);
  },
});

/** Whole days since a time. */
function daysSince(time: string, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(time)) / 86_400_000);
}
