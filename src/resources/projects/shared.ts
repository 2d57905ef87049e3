import type { OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseAccessLevel, parseChoice, parseDateTime, parseList } from '../../parse.js';
import type { Query } from '../../api/path.js';

/** Filters and ordering shared by `projects list` and `groups list` (the service's names, as flags). */

export const VISIBILITIES = ['private', 'internal', 'public'] as const;
export const SORTS = ['asc', 'desc'] as const;

export const visibilityOption: OptionDef = { flags: '--visibility <level>', description: 'private, internal or public', parse: parseChoice('--visibility', VISIBILITIES) };
export const searchOption = (what: string): OptionDef => ({ flags: '--search <text>', description: `only ${what} contains this text (case-insensitive)` });
export const minAccessOption: OptionDef = {
  flags: '--min-access-level <role>',
  description: 'only where you have at least this role: guest planner reporter developer maintainer owner (or 10-50)',
  parse: parseAccessLevel('--min-access-level'),
};
export const sortOption: OptionDef = { flags: '--sort <direction>', description: 'asc or desc', parse: parseChoice('--sort', SORTS) };

/** `--archived` / `--no-archived`: a three-state flag (absent means both). */
export const archivedOption: OptionDef = { flags: '--archived', description: 'only archived ones (--no-archived: only those not archived)' };
export const noArchivedOption: OptionDef = { flags: '--no-archived', description: 'only those not archived' };

export interface ProjectFilters {
  search?: string;
  searchNamespaces?: boolean;
  owned?: boolean;
  membership?: boolean;
  archived?: boolean;
  visibility?: string;
  topic?: string[];
  minAccessLevel?: number;
  lastActivityAfter?: string;
  lastActivityBefore?: string;
  orderBy?: string;
  sort?: 'asc' | 'desc';
  statistics?: boolean;
  includeSubgroups?: boolean;
  withShared?: boolean;
  simple?: boolean;
}

export const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'] as const;

export const projectFilterOptions: OptionDef[] = [
  searchOption('projects whose name, path or description'),
  { flags: '--search-namespaces', description: 'let --search match the namespace path too (acme/ finds every project of acme)' },
  { flags: '--owned', description: 'only projects you own (your own namespace, or as Owner)' },
  { flags: '--membership', description: 'only projects you are a member of (directly or through a group)' },
  archivedOption,
  noArchivedOption,
  visibilityOption,
  { flags: '--topic <topics>', description: 'only projects with all these topics (comma-separated)', parse: parseList },
  minAccessOption,
  { flags: '--last-activity-after <datetime>', description: 'last activity after this ISO 8601 time', parse: parseDateTime('--last-activity-after') },
  { flags: '--last-activity-before <datetime>', description: 'last activity before this ISO 8601 time', parse: parseDateTime('--last-activity-before') },
  { flags: '--order-by <field>', description: `${PROJECT_ORDER.join(', ')} (default created_at; with --all, id)`, parse: parseChoice('--order-by', PROJECT_ORDER) },
  sortOption,
  { flags: '--statistics', description: 'include storage and commit statistics (Reporter and up)' },
  { flags: '--simple', description: 'the short record the service returns with simple=true (faster on large instances)' },
];

/** The query of a project list for these filters. */
export function projectQuery(opts: ProjectFilters): Query {
  if (opts.searchNamespaces && !opts.search) throw new UsageError('--search-namespaces needs --search');
  return {
    search: opts.search,
    search_namespaces: opts.searchNamespaces || undefined,
    owned: opts.owned || undefined,
    membership: opts.membership || undefined,
    archived: opts.archived,
    visibility: opts.visibility,
    topic: opts.topic?.length ? opts.topic.join(',') : undefined,
    min_access_level: opts.minAccessLevel,
    last_activity_after: opts.lastActivityAfter,
    last_activity_before: opts.lastActivityBefore,
    order_by: opts.orderBy,
    sort: opts.sort,
    statistics: opts.statistics || undefined,
    simple: opts.simple || undefined,
  };
}

export const projectColumns = ['id', 'path_with_namespace', 'visibility', 'archived', 'default_branch', 'last_activity_at'];
export const groupColumns = ['id', 'full_path', 'name', 'visibility', 'parent_id'];
