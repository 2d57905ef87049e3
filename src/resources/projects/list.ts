import { defineCommand } from '../../cli/command.js';
import { projects } from './resource.js';
import { UsageError } from '../../errors.js';
import type { Query } from '../../api/path.js';
import { COUNT_LIMIT } from '../../api/paginate.js';
import { projectColumns, projectFilterOptions, projectQuery, type ProjectFilters } from './shared.js';

interface Options extends ProjectFilters {
  group?: string;
  includeSubgroups?: boolean;
  withShared?: boolean;
  user?: string;
}

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Projects you can see (administrators: all), or those of a group (--group, with --include-subgroups for the whole tree)',
    'or of a user\'s namespace (--user). --all pages through everything, newest first by id (as without --all) unless',
    '--order-by is given, and',
    'continues by keyset pagination where offsets end (50,000 records).',
  ].join(' '),
  examples: [
    'forgectl projects list --search api',
    'forgectl projects list --group acme --include-subgroups --all -o ndjson',
    'forgectl projects list --membership --no-archived --order-by last_activity_at',
    'forgectl projects list --owned --visibility public --fields id,path_with_namespace,web_url -o csv',
  ],
  options: [
    { flags: '--group <id|path>', description: 'projects of this group' },
    { flags: '--include-subgroups', description: 'with --group: also the projects of every subgroup, at any depth' },
    { flags: '--no-with-shared', description: 'with --group: leave out projects shared with the group' },
    { flags: '--user <id|username>', description: 'projects in this user\'s personal namespace' },
    ...projectFilterOptions,
  ],
  list: true,
  columns: projectColumns,
  async run(opts, ctx) {
    if (opts.group && opts.user) throw new UsageError('--group and --user exclude each other');
    if (opts.includeSubgroups && !opts.group) throw new UsageError('--include-subgroups needs --group');
    const query: Query = projectQuery(opts);
    const route: string = opts.group ? projects.routes.ofGroup : opts.user ? projects.routes.ofUser : projects.routes.list;
    if (opts.group) Object.assign(query, { include_subgroups: opts.includeSubgroups || undefined, with_shared: opts.withShared === false ? false : undefined });
    // Keyset pagination (which --all needs past 50,000 records) orders by id only: newest first, as without --all
    // (the service's default order is by creation, newest first).
    const byId = ctx.paging.all && !opts.orderBy;
    if (byId) Object.assign(query, { order_by: 'id', sort: opts.sort ?? 'desc' });
    const sort = String(query.sort ?? 'desc');
    return ctx.api.list(route, { ...query, group: opts.group, user: opts.user }, {
      ...ctx.paging,
      keysetAfter: byId || opts.orderBy === 'id' ? (last: Record<string, unknown>) => ({ order_by: 'id', sort, [sort === 'asc' ? 'id_after' : 'id_before']: Number(last.id) }) : undefined,
      countLimit: COUNT_LIMIT,
    });
  },
});
