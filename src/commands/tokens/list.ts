import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseDate, parseDateTime, parseInteger } from '../../parse.js';
import { personalTokenColumns, resolveTarget, targetOptions, tokenColumns, withLevelName, type TargetOptions } from './shared.js';

const SORTS = ['created_asc', 'created_desc', 'expires_asc', 'expires_desc', 'last_used_asc', 'last_used_desc', 'name_asc', 'name_desc'] as const;

interface Options extends TargetOptions {
  state?: 'active' | 'inactive';
  revoked?: boolean;
  search?: string;
  sort?: string;
  createdAfter?: string;
  createdBefore?: string;
  expiresAfter?: string;
  expiresBefore?: string;
  lastUsedAfter?: string;
  lastUsedBefore?: string;
  user?: number;
}

export default defineCommand<Options>({
  description: 'Every filter of the service is available. Personal tokens: your own, or (administrators) everyone\'s, narrowed with --user.',
  examples: [
    'forgectl tokens list --group acme',
    'forgectl tokens list --project acme/api --state active --sort expires_asc',
    'forgectl tokens list --personal --user 2 --expires-before 2027-01-31 -o json',
  ],
  options: [
    ...targetOptions,
    { flags: '--state <state>', description: 'active or inactive (revoked or expired)', parse: parseChoice('--state', ['active', 'inactive'] as const) },
    { flags: '--revoked', description: 'only revoked tokens' },
    { flags: '--search <text>', description: 'tokens whose name contains this text' },
    { flags: '--sort <order>', description: SORTS.join(', '), parse: parseChoice('--sort', SORTS) },
    { flags: '--created-after <datetime>', description: 'created after this time (ISO 8601)', parse: parseDateTime('--created-after') },
    { flags: '--created-before <datetime>', description: 'created before this time', parse: parseDateTime('--created-before') },
    { flags: '--expires-after <date>', description: 'expiring after this date (YYYY-MM-DD)', parse: parseDate('--expires-after') },
    { flags: '--expires-before <date>', description: 'expiring before this date', parse: parseDate('--expires-before') },
    { flags: '--last-used-after <datetime>', description: 'last used after this time', parse: parseDateTime('--last-used-after') },
    { flags: '--last-used-before <datetime>', description: 'last used before this time', parse: parseDateTime('--last-used-before') },
    { flags: '--user <id>', description: 'with --personal: tokens of this user (administrators)', parse: parseInteger('--user', 1) },
  ],
  list: true,
  columns: tokenColumns,
  async run(opts, ctx) {
    const target = resolveTarget(opts);
    if (opts.user !== undefined && target.kind !== 'personal') throw new UsageError('--user goes with --personal');
    const list = ctx.api.list<Record<string, unknown>>(target.route('list'), {
      ...target.params(),
      state: opts.state,
      revoked: opts.revoked ? true : undefined,
      search: opts.search,
      sort: opts.sort,
      created_after: opts.createdAfter,
      created_before: opts.createdBefore,
      expires_after: opts.expiresAfter,
      expires_before: opts.expiresBefore,
      last_used_after: opts.lastUsedAfter,
      last_used_before: opts.lastUsedBefore,
      user_id: opts.user,
    }, ctx.paging).map(withLevelName);
    if (target.kind === 'personal') list.columns = personalTokenColumns;
    return list;
  },
});
