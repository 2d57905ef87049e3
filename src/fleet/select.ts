import type { Api } from '../api/client.js';
import { projects as projectsDecl } from '../resources/projects/resource.js';
import type { Io } from '../output/io.js';
import { readLocalFile } from '../files.js';
import { UsageError } from '../errors.js';
import { isGlob, matchesGlob } from './glob.js';

/**
 * The fleet selector's projects: a group's (with --recursive, those of its subgroups too; archived ones only with
 * --include-archived), narrowed by --match and --exclude globs over the full path; or the projects listed in a file
 * (one ID or full path a line, # comments), or on stdin.
 */

/** Which projects a fleet operation works on. */
export interface FleetSelection {
  group?: string;
  recursive?: boolean;
  includeArchived?: boolean;
  match?: string[];
  exclude?: string[];
  projectsFile?: string;
}

export interface FleetRun {
  concurrency: number;
  continueOnError?: boolean;
  /** --shard I/N (else read from the environment of a parallel CI job or an Indexed Job). */
  shard?: { index: number; total: number };
  shardTotal?: number;
  /** --rate-limit: requests per period for the whole job (every shard together). */
  rateLimit?: { limit: number; periodSeconds: number };
  /** --failed-to FILE: where the projects that failed are written (for --projects-file). */
  failedTo?: string;
}

/** What selecting projects needs of a run: the client, stdin (--projects-file -) and the profile's default group. */
export interface SelectContext {
  readonly api: Api;
  readonly io: Pick<Io, 'readStdin' | 'note'>;
  group(value: string | undefined): string;
}

/**
 * Which selector a command takes: 'selector' (--group or --projects-file), or 'projects-file' alone where the
 * command's own --group (and --instance) names where its records are.
 */
export type FleetKind = 'selector' | 'projects-file';

/** Whether the options select a fleet (rather than one --project). */
export function fleetSelected(opts: FleetSelection, kind: FleetKind = 'selector'): boolean {
  return (kind === 'selector' && opts.group !== undefined) || opts.projectsFile !== undefined;
}

const RUN_KEYS = ['match', 'exclude', 'concurrency', 'continueOnError', 'shard', 'shardTotal', 'rateLimit', 'failedTo'] as const;
const flagOf = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Refuses selector options that make no sense together, before anything is sent. */
export function checkSelection(opts: FleetSelection & Partial<FleetRun> & { project?: string; instance?: boolean }, kind: FleetKind = 'selector'): void {
  if (kind === 'projects-file') {
    if (opts.projectsFile === undefined) {
      const stray = RUN_KEYS.filter((key) => opts[key] !== undefined);
      if (stray.length) throw new UsageError(`${stray.map(flagOf).join(', ')} appl${stray.length === 1 ? 'ies' : 'y'} to --projects-file`, 'list the projects in a file and give --projects-file FILE');
      return;
    }
    const other = opts.project !== undefined ? '--project' : opts.group !== undefined ? '--group' : opts.instance ? '--instance' : undefined;
    if (other) throw new UsageError(`give ${other} or --projects-file, not both`, other === '--project' ? undefined : `${other} acts on the ${other.slice(2)}'s own records; --projects-file on each project listed`);
    return;
  }
  if (opts.group !== undefined && opts.projectsFile !== undefined) throw new UsageError('give --group or --projects-file, not both');
  if (opts.project !== undefined && fleetSelected(opts)) throw new UsageError(`give --project or ${opts.group !== undefined ? '--group' : '--projects-file'}, not both`);
  if (!fleetSelected(opts)) {
    const stray = (['recursive', 'includeArchived', ...RUN_KEYS] as const).filter((key) => opts[key] !== undefined);
    if (stray.length) throw new UsageError(`${stray.map(flagOf).join(', ')} appl${stray.length === 1 ? 'ies' : 'y'} to a fleet of projects: add --group GROUP or --projects-file FILE`);
  }
  if (opts.projectsFile !== undefined && (opts.recursive || opts.includeArchived)) throw new UsageError('--recursive and --include-archived apply to --group, not to --projects-file');
}

/** One project of a fleet: its full path (or the ID a projects file gave) and what the list said of it. */
export interface FleetProject {
  /** The full path; an ID as given when a projects file names the project by ID. */
  path: string;
  id?: number;
  archived?: boolean;
  defaultBranch?: string;
}

const selected = (path: string, opts: FleetSelection): boolean =>
  (!opts.match?.length || opts.match.some((glob) => matchesGlob(path, glob))) && !opts.exclude?.some((glob) => matchesGlob(path, glob));

/** The projects of the selection, in a stable order: by full path for a group, as listed for a file. */
export async function selectProjects(ctx: SelectContext, opts: FleetSelection): Promise<FleetProject[]> {
  checkSelection(opts);
  if (opts.projectsFile !== undefined) return projectsFromFile(ctx, opts);
  const group = ctx.group(opts.group);
  const query = {
    group,
    include_subgroups: opts.recursive ? true : undefined,
    archived: opts.includeArchived ? undefined : false,
    with_shared: false,
    simple: true,
    order_by: 'id',
    sort: 'asc',
  };
  const projects: FleetProject[] = [];
  for await (const project of ctx.api.list<{ id: number; path_with_namespace: string; archived?: boolean; default_branch?: string }>(projectsDecl.routes.ofGroup, query, { all: true })) {
    if (!selected(project.path_with_namespace, opts)) continue;
    projects.push({ path: project.path_with_namespace, id: project.id, archived: project.archived, defaultBranch: project.default_branch ?? undefined });
  }
  return projects.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function projectsFromFile(ctx: SelectContext, opts: FleetSelection): Promise<FleetProject[]> {
  const file = opts.projectsFile!;
  const text = file === '-' ? await ctx.io.readStdin() : readLocalFile(file, 'utf8');
  const seen = new Set<string>();
  const projects: FleetProject[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    if (/\s/.test(line) || isGlob(line) || line.startsWith('/') || line.endsWith('/')) {
      throw new UsageError(`${file === '-' ? 'stdin' : file}:${index + 1}: "${line}" is not a project ID or full path`);
    }
    if (seen.has(line.toLowerCase())) return;
    seen.add(line.toLowerCase());
    if (/^\d+$/.test(line) || selected(line, opts)) projects.push({ path: line });
  });
  return projects;
}
