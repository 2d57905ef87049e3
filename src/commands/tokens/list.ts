import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseDate, parseDateTime } from '../../parse.js';
import { personalTokenColumns, resolveUserTarget, targetOptions, tokenColumns, userOptions, withLevelName, type TargetOptions, type UserOptions } from './shared.js';

/** The filters of access token lists that impersonation token lists do not have. */
const OTHER_FILTERS: Array<[keyof Options, string]> = [
  ['revoked', '--revoked'], ['search', '--search'], ['sort', '--sort'], ['createdAfter', '--created-after'], ['createdBefore', '--created-before'],
  ['expiresAfter', '--expires-after'], ['expiresBefore', '--expires-before'], ['lastUsedAfter', '--last-used-after'], ['lastUsedBefore', '--last-used-before'],
];

const SORTS = ['created_asc', 'created_desc', 'expires_asc', 'expires_desc', 'last_used_asc', 'last_used_desc', 'name_asc', 'name_desc'] as const;

interface Options extends TargetOptions, UserOptions {
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
}

export default defineCommand<Options>({
  description: [
    'Every filter of the service is available. Personal tokens: your own, or (administrators) everyone\'s, narrowed',
    'with --user (a username or an ID); --impersonation lists that user\'s impersonation tokens (filtered by --state only).',
    'A service account\'s tokens: --service-account NAME (the instance\'s, for administrators), with --group for a top-level',
    'group\'s (its Owners).',
  ].join(' '),
  examples: [
    'forgectl tokens list --group acme',
    'forgectl tokens list --project acme/api --state active --sort expires_asc',
    'forgectl tokens list --personal --user 2 --expires-before 2027-01-31 -o json',
    'forgectl tokens list --personal --user alice --impersonation --state active',
    'forgectl tokens list --service-account service_account_deploy --state active',
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
    ...userOptions,
  ],
  list: true,
  columns: tokenColumns,
  async run(opts, ctx) {
    const { target, userId } = await resolveUserTarget(opts, ctx);
    if (target.kind === 'impersonation') {
      const other = OTHER_FILTERS.find(([key]) => opts[key] !== undefined);
      if (other) throw new UsageError(`${other[1]} is not a filter of impersonation tokens: they are filtered by --state only`);
      const list = ctx.api.list<Record<string, unknown>>(target.route('list'), { ...target.params(), state: opts.state }, ctx.paging);
      list.columns = personalTokenColumns;
      return list;
    }
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
      ...(userId === undefined ? {} : { user_id: userId }),
    }, ctx.paging).map(withLevelName);
    if (target.kind === 'personal' || target.kind === 'service-account') list.columns = personalTokenColumns;
    return list;
  },
});
