import { p } from '../../api/path.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError, ExitCode } from '../../errors.js';
import { accessLevelName, collect, parseDuration } from '../../cli/parse.js';
import { ResultWithExit } from '../../output/result.js';
import { daysLeft, isoDay, type TokenRecord } from './shared.js';

interface Options {
  group?: string[];
  project?: string[];
  expiringWithin: string;
  personal: boolean;
}


export default defineCommand<Options>({
  description: [
    'Looks at the token in use, the group and project tokens of every --group and --project, and the personal tokens',
    'the caller may list (their own; every user\'s for administrators). Shows the active ones expiring within the',
    'window, soonest first. Exit 9 when any does, 0 otherwise: made for cron and monitoring.',
  ].join(' '),
  examples: [
    'forgectl tokens audit --expiring-within 14d',
    'forgectl tokens audit --group acme --project acme/api --expiring-within 30d -o json',
    'forgectl -p bot tokens audit --expiring-within 7d --no-personal || notify-admins',
  ],
  options: [
    { flags: '--group <id|path>', description: 'also the access tokens of this group (repeatable)', parse: collect },
    { flags: '--project <id|path>', description: 'also the access tokens of this project (repeatable)', parse: collect },
    { flags: '--expiring-within <duration>', description: 'window from now: 30d, 2w, 12h', default: '30d', parse: (v: string) => (parseDuration('--expiring-within')(v), v) },
    { flags: '--no-personal', description: 'skip the list of personal tokens' },
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

    try {
      consider(await ctx.api.get<TokenRecord>('/personal_access_tokens/self'), 'self', true);
    } catch (error) {
      // Job and OAuth tokens have no record of their own; the lists below still count.
      if (!(error instanceof ApiError) || ![403, 404, 405].includes(error.status)) throw error;
    }
    const lists: Array<[string, string]> = [
      ...(opts.group ?? []).map((g): [string, string] => [p`/groups/${g}/access_tokens`, `group ${g}`]),
      ...(opts.project ?? []).map((pr): [string, string] => [p`/projects/${pr}/access_tokens`, `project ${pr}`]),
    ];
    if (opts.personal) lists.push(['/personal_access_tokens', 'personal']);
    for (const [path, source] of lists) {
      for await (const token of ctx.api.list<TokenRecord>(path, { state: 'active' }, { all: true })) consider(token, source);
    }

    const rows = [...found.values()].sort((a, b) => String(a.expires_at).localeCompare(String(b.expires_at)) || Number(a.id) - Number(b.id));
    const window = `${opts.expiringWithin} (by ${lastDay})`;
    if (!rows.length) {
      ctx.io.note(`no token expires within ${window}; checked ${checked}`);
      return rows;
    }
    const count = `${rows.length} token${rows.length === 1 ? '' : 's'}`;
    return new ResultWithExit(rows, ExitCode.attention, `attention: ${count} expire${rows.length === 1 ? 's' : ''} within ${window}`);
  },
});

