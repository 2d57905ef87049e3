import { tokenCollection, type TokenRecord } from '../../api/access-tokens.js';
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
  expiringWithin: string;
  personal: boolean;
  instance?: boolean;
  concurrency?: number;
}

/** Every group and project of the instance (an administrator sees them all), as token lists to read. */
async function instanceLists(ctx: Context): Promise<Array<[string, string]>> {
  const user = await ctx.api.get<{ is_admin?: boolean; username?: string }>('/user');
  if (!user.is_admin) throw new CliError('tokens audit --instance is for administrators', ExitCode.auth, 'name the groups and projects to check with --group and --project');
  const lists: Array<[string, string]> = [];
  for await (const group of ctx.api.list<{ id: number; full_path: string }>('/groups', { all_available: true, order_by: 'id', sort: 'asc' }, { all: true })) {
    lists.push([tokenCollection('group', String(group.id)), `group ${group.full_path}`]);
  }
  const projects = ctx.api.list<{ id: number; path_with_namespace: string }>('/projects', { simple: true, order_by: 'id', sort: 'asc' }, { all: true, keysetAfter: (last) => ({ id_after: last.id }) });
  for await (const project of projects) lists.push([tokenCollection('project', String(project.id)), `project ${project.path_with_namespace}`]);
  return lists;
}


export default defineCommand<Options>({
  description: [
    'Looks at the token in use, the group and project tokens of every --group and --project, and the personal tokens',
    'the caller may list (their own; every user\'s for administrators). Shows the active ones expiring within the',
    'window, soonest first. Exit 9 when any does, 0 otherwise: made for cron and monitoring. Administrators can check every',
    'group and project of the instance with --instance (--concurrency at a time, through one shared rate limit); a group or',
    'project whose tokens cannot be read is named on stderr and also exits 9.',
  ].join(' '),
  examples: [
    'forgectl tokens audit --expiring-within 14d',
    'forgectl tokens audit --group acme --project acme/api --expiring-within 30d -o json',
    'forgectl -p bot tokens audit --expiring-within 7d --no-personal || notify-admins',
    'forgectl -p admin tokens audit --instance --concurrency 16 --expiring-within 14d -o json',
  ],
  options: [
    { flags: '--group <id|path>', description: 'also the access tokens of this group (repeatable)', parse: collect },
    { flags: '--project <id|path>', description: 'also the access tokens of this project (repeatable)', parse: collect },
    { flags: '--expiring-within <duration>', description: 'window from now: 30d, 2w, 12h', default: '30d', parse: (v: string) => (parseDuration('--expiring-within')(v), v) },
    { flags: '--no-personal', description: 'skip the list of personal tokens' },
    { flags: '--instance', description: 'every group and project of the instance (administrators)' },
    concurrencyOption,
    ...shardOptions,
  ],
  columns: ['days_left', 'expires_at', 'source', 'id', 'name', 'scopes', 'access_level_name', 'self'],
  async run(opts, ctx) {
    const windowMs = parseDuration('--expiring-within')(opts.expiringWithin);
    const now = ctx.now();
    const lastDay = isoDay(new Date(now.getTime() + windowMs));
    const found = new Map<number, Record<string, unknown>>();
    let checked = 0;
    const consider = (token: TokenRecord, source: string, self = false): void => {
      checked++;
      const known = found.get(token.id);
      if (known) {
        if (self) known.self = true;
        return;
      }
      if (token.revoked || token.active === false || !token.expires_at || token.expires_at.slice(0, 10) > lastDay) return;
      found.set(token.id, {
        days_left: daysLeft(token.expires_at, now),
        expires_at: token.expires_at,
        source,
        id: token.id,
        name: token.name,
        scopes: token.scopes,
        access_level_name: accessLevelName(token.access_level),
        user_id: token.user_id,
        self,
      });
    };

    if (!opts.instance && (opts.shard || opts.shardTotal !== undefined || opts.rateLimit)) throw new UsageError('--shard and --rate-limit go with --instance');
    // A shard of a parallel job reads its part of the instance's groups and projects; the first also the caller's own lists.
    const shard = opts.instance ? resolveShard(opts, ctx.env) : undefined;
    const first = !shard || shard.index === 1;
    try {
      const self = await ctx.api.get<TokenRecord>('/personal_access_tokens/self');
      // Other shards only know it, so that it is not shown again under the project or group that holds it.
      if (first) consider(self, 'self', true);
      else found.set(self.id, {});
    } catch (error) {
      // Job and OAuth tokens have no record of their own; the lists below still count.
      if (!(error instanceof ApiError) || ![403, 404, 405].includes(error.status)) throw error;
    }
    if (opts.instance && (opts.group || opts.project)) throw new UsageError('--instance checks every group and project already; leave out --group and --project');
    if (opts.concurrency !== undefined && !opts.instance) throw new UsageError('--concurrency goes with --instance');
    const lists: Array<[string, string]> = opts.instance
      ? await instanceLists(ctx)
      : [
          ...(opts.group ?? []).map((g): [string, string] => [tokenCollection('group', g), `group ${g}`]),
          ...(opts.project ?? []).map((pr): [string, string] => [tokenCollection('project', pr), `project ${pr}`]),
        ];
    if (shard) {
      const mine = takeShard(lists, ([, label]) => label.replace(/^(group|project) /, ''), shard, (line) => ctx.io.note(line), 'groups and projects');
      lists.splice(0, lists.length, ...mine);
    }
    if (opts.personal && first) lists.push([tokenCollection('personal', ''), 'personal']);
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
    const read = async ([path]: [string, string]): Promise<TokenRecord[]> => {
      const tokens: TokenRecord[] = [];
      for await (const token of ctx.api.list<TokenRecord>(path, { state: 'active' }, { all: true })) tokens.push(token);
      return tokens;
    };
    // In the lists' order whatever the timing: the same token seen twice keeps the source it was first seen under.
    for await (const outcome of orderedPool(lists, concurrency, read)) {
      const source = outcome.item[1];
      if (outcome.status === 'ok') for (const token of outcome.value) consider(token, source);
      else if (outcome.status === 'failed') {
        // Outside --instance every list was asked for by name: its failure is the command's.
        if (!opts.instance || !(outcome.error instanceof ApiError) || outcome.error.status === 401) throw outcome.error;
        unreadable.push(`${source}: ${outcome.error.message} (${outcome.error.status})`);
      }
    }
    for (const line of unreadable) ctx.io.warn(`could not read the tokens of ${line}`);

    const rows = [...found.values()].filter((row) => row.id !== undefined).sort((a, b) => String(a.expires_at).localeCompare(String(b.expires_at)) || Number(a.id) - Number(b.id));
    const window = `${opts.expiringWithin} (by ${lastDay})`;
    const scope = opts.instance ? ` in ${lists.length.toLocaleString('en-US')} token lists of the instance` : '';
    const unread = unreadable.length ? `; ${plural(unreadable.length, 'list')} could not be read` : '';
    if (!rows.length) {
      if (unreadable.length) return new ResultWithExit(rows, ExitCode.attention, `attention: no token expires within ${window}; checked ${checked}${scope}${unread}`);
      ctx.io.note(`no token expires within ${window}; checked ${checked}${scope}`);
      return rows;
    }
    const count = plural(rows.length, 'token');
    return new ResultWithExit(rows, ExitCode.attention, `attention: ${count} expire${rows.length === 1 ? 's' : ''} within ${window}${scope}${unread}`);
  },
});

