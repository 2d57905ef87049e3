import { defineCommand } from '../../cli/command.js';
import { groups } from './resource.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseList } from '../../parse.js';
import { archivedOption, groupColumns, minAccessOption, noArchivedOption, searchOption, sortOption, visibilityOption } from '../projects/shared.js';

interface Options {
  parent?: string;
  descendants?: boolean;
  search?: string;
  owned?: boolean;
  allAvailable?: boolean;
  topLevelOnly?: boolean;
  minAccessLevel?: number;
  skipGroups?: string[];
  visibility?: string;
  archived?: boolean;
  orderBy?: string;
  sort?: 'asc' | 'desc';
  statistics?: boolean;
}

const ORDER = ['name', 'path', 'id', 'similarity'] as const;

export default defineCommand<Options>({
  effect: 'read',
  description: [
    'Groups you are a member of (administrators: all; --all-available adds the public and internal ones you can see),',
    'or the subgroups of a group (--parent; with --descendants at any depth).',
  ].join(' '),
  examples: [
    'forgectl groups list --search platform',
    'forgectl groups list --parent acme --descendants --all -o ndjson',
    'forgectl groups list --top-level-only --owned',
    'forgectl groups list --min-access-level maintainer --fields id,full_path -o csv',
  ],
  options: [
    { flags: '--parent <id|path>', description: 'the subgroups of this group' },
    { flags: '--descendants', description: 'with --parent: subgroups at any depth, not only the direct ones' },
    searchOption('groups whose name or path'),
    { flags: '--owned', description: 'only groups you are a direct Owner of' },
    { flags: '--all-available', description: 'also the public and internal groups you can see' },
    { flags: '--top-level-only', description: 'only top-level groups' },
    minAccessOption,
    { flags: '--skip-groups <ids>', description: 'leave out these group ids (comma-separated)', parse: parseList },
    visibilityOption,
    archivedOption,
    noArchivedOption,
    { flags: '--order-by <field>', description: `${ORDER.join(', ')} (default name)`, parse: parseChoice('--order-by', ORDER) },
    sortOption,
    { flags: '--statistics', description: 'include storage statistics (administrators)' },
  ],
  list: true,
  columns: groupColumns,
  async run(opts, ctx) {
    if (opts.descendants && !opts.parent) throw new UsageError('--descendants needs --parent');
    if (opts.topLevelOnly && opts.parent) throw new UsageError('--top-level-only and --parent exclude each other');
    const skip = opts.skipGroups?.map((id) => {
      if (!/^\d+$/.test(id)) throw new UsageError(`--skip-groups takes group ids, got "${id}"`);
      return Number(id);
    });
    const route: string = !opts.parent ? groups.routes.list : opts.descendants ? groups.routes.descendants : groups.routes.subgroups;
    return ctx.api.list(route, {
      group: opts.parent,
      search: opts.search,
      owned: opts.owned || undefined,
      all_available: opts.allAvailable || undefined,
      top_level_only: opts.topLevelOnly || undefined,
      min_access_level: opts.minAccessLevel,
      skip_groups: skip?.length ? skip : undefined,
      visibility: opts.visibility,
      archived: opts.archived,
      order_by: opts.orderBy,
      sort: opts.sort,
      statistics: opts.statistics || undefined,
    }, ctx.paging);
  },
});
