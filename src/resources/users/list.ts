import { defineCommand, type OptionDef } from '../../cli/command.js';
import { users } from './resource.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { parseChoice, parseDateTime, parseInteger, parseKeyValue } from '../../parse.js';
import type { Query } from '../../api/path.js';
import { COUNT_LIMIT } from '../../api/paginate.js';

const ORDER_BY = ['id', 'name', 'username', 'created_at', 'updated_at'] as const;
type OrderBy = (typeof ORDER_BY)[number];

interface Options {
  username?: string;
  search?: string;
  active?: boolean;
  blocked?: boolean;
  external?: boolean;
  humans?: boolean;
  excludeActive?: boolean;
  excludeExternal?: boolean;
  excludeHumans?: boolean;
  excludeInternal?: boolean;
  withoutProjectBots?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  externUid?: string;
  provider?: string;
  orderBy?: OrderBy;
  sort?: 'asc' | 'desc';
  twoFactor?: 'enabled' | 'disabled';
  withoutProjects?: boolean;
  admins?: boolean;
  auditors?: boolean;
  samlProviderId?: number;
  skipLdap?: boolean;
  customAttribute?: Array<[string, string]>;
  withCustomAttributes?: boolean;
}

const flag = (flags: string, description: string): OptionDef => ({ flags, description });

/** Boolean filters: option name → query parameter. The service only acts on `true`, so only that is sent. */
const SWITCHES: Array<[keyof Options, string]> = [
  ['active', 'active'], ['blocked', 'blocked'], ['external', 'external'], ['humans', 'humans'],
  ['excludeActive', 'exclude_active'], ['excludeExternal', 'exclude_external'], ['excludeHumans', 'exclude_humans'],
  ['excludeInternal', 'exclude_internal'], ['withoutProjectBots', 'without_project_bots'], ['withoutProjects', 'without_projects'],
  ['admins', 'admins'], ['auditors', 'auditors'], ['skipLdap', 'skip_ldap'], ['withCustomAttributes', 'with_custom_attributes'],
];

/**
 * The filters the service applies only for administrators: for anyone else it ignores them and answers the unfiltered
 * list, which would read as "these are the users without two-factor" while being everyone.
 */
const ADMIN_FILTERS: Array<keyof Options> = [
  'externUid', 'orderBy', 'sort', 'twoFactor', 'withoutProjects', 'admins', 'auditors', 'samlProviderId', 'skipLdap', 'customAttribute', 'withCustomAttributes',
];

const CONTRADICTIONS: Array<[keyof Options, keyof Options]> = [['active', 'excludeActive'], ['external', 'excludeExternal'], ['humans', 'excludeHumans'], ['active', 'blocked']];
const optionName = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The query of `GET /users` for these options, checked before anything is sent. */
export function usersQuery(opts: Options): Query {
  for (const [a, b] of CONTRADICTIONS) {
    if (opts[a] && opts[b]) throw new UsageError(`${optionName(a)} and ${optionName(b)} exclude each other`);
  }
  if (Boolean(opts.externUid) !== Boolean(opts.provider)) throw new UsageError('--extern-uid and --provider go together');
  const query: Query = {
    username: opts.username,
    search: opts.search,
    created_after: opts.createdAfter,
    created_before: opts.createdBefore,
    extern_uid: opts.externUid,
    provider: opts.provider,
    order_by: opts.orderBy,
    sort: opts.sort,
    two_factor: opts.twoFactor,
    saml_provider_id: opts.samlProviderId,
    custom_attributes: opts.customAttribute?.length ? Object.fromEntries(opts.customAttribute) : undefined,
  };
  for (const [option, param] of SWITCHES) if (opts[option]) query[param] = true;
  return query;
}

/**
 * Where --all continues by keyset once offsets end (the service refuses offsets past 50,000): after the last record
 * seen, in the same order, with the cursor the service itself puts in its `Link` headers.
 */
export function keysetAfter(orderBy: OrderBy, sort: 'asc' | 'desc') {
  return (last: Record<string, unknown>): Query => {
    const position: Record<string, unknown> = orderBy === 'id' ? {} : { [orderBy]: last[orderBy] };
    const cursor = Buffer.from(JSON.stringify({ ...position, id: String(last.id), _kd: 'n' })).toString('base64url');
    return { cursor, order_by: orderBy, sort };
  };
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Everyone may use the first group of filters; --extern-uid/--provider, --order-by, --sort, --two-factor, --without-projects,',
    '--admins, --auditors, --saml-provider-id, --skip-ldap and custom attributes are for administrators (the last four on Premium);',
    'with another token they are refused, as the service would ignore them and list everyone.',
    '--all fetches pages concurrently and continues by keyset pagination past 50,000 users.',
  ].join(' '),
  examples: [
    'forgectl users list --search alice',
    'forgectl users list --active --humans --created-after 2025-01-01T00:00:00Z --all -o ndjson',
    'forgectl users list --two-factor disabled --without-project-bots --order-by username --sort asc --all',
    'forgectl users list --extern-uid 1234 --provider ldapmain',
  ],
  options: [
    flag('--username <name>', 'exactly this username (case-insensitive)'),
    flag('--search <text>', 'name or username (fuzzy), or a complete public email (administrators: also private emails)'),
    flag('--active', 'only active users'),
    flag('--blocked', 'only blocked users'),
    flag('--external', 'only external users'),
    flag('--humans', 'only human users (no bots or internal users)'),
    flag('--exclude-active', 'leave out active users'),
    flag('--exclude-external', 'leave out external users'),
    flag('--exclude-humans', 'leave out human users'),
    flag('--exclude-internal', 'leave out internal users'),
    flag('--without-project-bots', 'leave out project bot users'),
    { flags: '--created-after <datetime>', description: 'created after this ISO 8601 time', parse: parseDateTime('--created-after') },
    { flags: '--created-before <datetime>', description: 'created before this ISO 8601 time', parse: parseDateTime('--created-before') },
    flag('--extern-uid <uid>', 'administrators: the user with this external identity (with --provider)'),
    flag('--provider <name>', 'administrators: identity provider of --extern-uid (e.g. ldapmain, group_saml, scim)'),
    { flags: '--order-by <field>', description: `administrators: ${ORDER_BY.join(', ')} (default id)`, parse: parseChoice('--order-by', ORDER_BY) },
    { flags: '--sort <direction>', description: 'administrators: asc or desc (default desc)', parse: parseChoice('--sort', ['asc', 'desc'] as const) },
    { flags: '--two-factor <state>', description: 'administrators: enabled or disabled', parse: parseChoice('--two-factor', ['enabled', 'disabled'] as const) },
    flag('--without-projects', 'administrators: users who are members of no project'),
    flag('--admins', 'administrators: only administrators'),
    flag('--auditors', 'administrators, Premium: only auditors'),
    { flags: '--saml-provider-id <id>', description: 'administrators, Premium: users of this SAML provider', parse: parseInteger('--saml-provider-id', 1) },
    flag('--skip-ldap', 'administrators, Premium: leave out LDAP users'),
    { flags: '--custom-attribute <key=value>', description: 'administrators: filter by a custom attribute (repeatable)', parse: parseKeyValue('--custom-attribute') },
    flag('--with-custom-attributes', 'administrators: include custom attributes in the records'),
  ],
  list: true,
  columns: ['id', 'username', 'name', 'state', 'web_url'],
  async run(opts, ctx) {
    const query = usersQuery(opts);
    const given = (value: unknown): boolean => value !== undefined && value !== false && !(Array.isArray(value) && !value.length);
    const adminFilters = ADMIN_FILTERS.filter((key) => given(opts[key]));
    if (adminFilters.length && !(await ctx.api.call<{ is_admin?: boolean }>(users.routes.current)).is_admin) {
      throw new CliError(
        `${adminFilters.map(optionName).join(', ')}: for administrators only; the service ignores ${adminFilters.length > 1 ? 'them' : 'it'} for other users and would list everyone`,
        ExitCode.auth,
        'use an administrator\'s token, or leave the option out',
      );
    }
    const orderBy = opts.orderBy ?? 'id';
    // updated_at is not in the records, so a keyset position cannot be built from one: page by keyset from the start.
    const keysetOnly = ctx.paging.all && orderBy === 'updated_at';
    return ctx.api.list(users.routes.list, query, {
      ...ctx.paging,
      keysetOnly,
      keysetAfter: keysetOnly ? undefined : keysetAfter(orderBy, opts.sort ?? 'desc'),
      countLimit: COUNT_LIMIT,
    });
  },
});
