import type { CommandDef, OptionDef } from '../cli/command.js';
import { projectOption } from '../cli/options.js';
import { collect, parseInteger, parseRateLimit } from '../parse.js';
import { UsageError } from '../errors.js';
import { MAX_SHARDS, parseShard } from './shard.js';

/**
 * The options of fleet operations, light enough for the command wiring to load on every run: any command that works
 * on one project (it has --project and no --group of its own) also takes a fleet selector instead, and the runner
 * (./command.ts) is loaded only when one is given.
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

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;

export const concurrencyOption: OptionDef = {
  flags: '--concurrency <n>',
  description: `projects worked on at once, sharing one rate limit (default ${DEFAULT_CONCURRENCY})`,
  parse: parseInteger('--concurrency', 1, MAX_CONCURRENCY),
};

/** The selector's options; `group` is left out where a command's --group means something else. */
export function selectorOptions(withGroup = true): OptionDef[] {
  return [
    ...(withGroup ? [{ flags: '--group <id|path>', description: 'every project of this group, instead of --project' }] : []),
    { flags: '--recursive', description: "with --group: also the projects of its subgroups" },
    { flags: '--include-archived', description: 'with --group: archived projects too' },
    { flags: '--match <glob>', description: "only projects whose full path matches (acme/**/api, repeatable)", parse: collect },
    { flags: '--exclude <glob>', description: 'leave out projects whose full path matches (repeatable)', parse: collect },
    { flags: '--projects-file <file>', description: 'the projects listed in this file (one ID or path a line; - for stdin)' },
  ];
}

/** Sharding over several processes, and the rate budget they share. */
export const shardOptions: OptionDef[] = [
  { flags: '--shard <i/n>', description: 'work on shard I of N only, by a stable hash of the full path (default: from CI_NODE_INDEX/CI_NODE_TOTAL or JOB_COMPLETION_INDEX)', parse: parseShard },
  { flags: '--shard-total <n>', description: 'how many shards there are, with JOB_COMPLETION_INDEX (default: FORGECTL_SHARD_TOTAL)', parse: parseInteger('--shard-total', 1, MAX_SHARDS) },
  { flags: '--rate-limit <n[/seconds]>', description: 'send at most n requests per period (default 60 s) for the whole job: each of N shards takes 1/N', parse: parseRateLimit('--rate-limit') },
];

export const failedToOption: OptionDef = { flags: '--failed-to <file>', description: 'write the projects that failed to this file, one a line (rerun them with --projects-file)' };

export const fleetRunOptions: OptionDef[] = [
  concurrencyOption,
  { flags: '--continue-on-error', description: 'keep going after a project fails (default: start no more projects)' },
  ...shardOptions,
  failedToOption,
];

/** Whether the options select a fleet (rather than one --project). */
export function fleetSelected(opts: FleetSelection): boolean {
  return opts.group !== undefined || opts.projectsFile !== undefined;
}

/** Refuses selector options that make no sense together, before anything is sent. */
export function checkSelection(opts: FleetSelection & Partial<FleetRun> & { project?: string }): void {
  if (opts.group !== undefined && opts.projectsFile !== undefined) throw new UsageError('give --group or --projects-file, not both');
  if (opts.project !== undefined && fleetSelected(opts)) throw new UsageError(`give --project or ${opts.group !== undefined ? '--group' : '--projects-file'}, not both`);
  if (!fleetSelected(opts)) {
    const stray = (['recursive', 'includeArchived', 'match', 'exclude', 'concurrency', 'continueOnError', 'shard', 'shardTotal', 'rateLimit', 'failedTo'] as const).filter((key) => opts[key] !== undefined);
    if (stray.length) throw new UsageError(`${stray.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} appl${stray.length === 1 ? 'ies' : 'y'} to a fleet of projects: add --group GROUP or --projects-file FILE`);
  }
  if (opts.projectsFile !== undefined && (opts.recursive || opts.includeArchived)) throw new UsageError('--recursive and --include-archived apply to --group, not to --projects-file');
}

export const FLEET_HELP_GROUP = 'Fleet (instead of --project):';

export const fleetOptions: OptionDef[] = [...selectorOptions(), ...fleetRunOptions];

const longFlag = (option: OptionDef): string | undefined => /--[a-z][a-z-]*/.exec(option.flags)?.[0];
const fleetFlags = new Set(fleetOptions.map(longFlag));

/**
 * Whether a command takes the fleet selector: it works on one project (--project) and none of its own options
 * already means something else by a selector flag (the --group of tokens, the --recursive of repo tree).
 */
export function takesFleet(def: CommandDef): boolean {
  const options = def.options ?? [];
  return options.includes(projectOption) && !options.some((option) => fleetFlags.has(longFlag(option)));
}
