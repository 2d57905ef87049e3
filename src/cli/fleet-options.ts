import type { CommandDef, OptionDef } from './command.js';
import { projectOption } from './options.js';
import { collect, parseInteger, parseRateLimit } from '../parse.js';
import { MAX_SHARDS, parseShard } from '../fleet/shard.js';
import type { FleetKind } from '../fleet/select.js';

/**
 * The options of fleet operations, light enough for the command wiring to load on every run: any command that works
 * on one project (it has --project and no --group of its own) also takes a fleet selector instead, and the runner
 * (./fleet.ts) is loaded only when one is given.
 */

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;

export const concurrencyOption: OptionDef = {
  flags: '--concurrency <n>',
  description: `projects worked on at once, sharing one rate limit (default ${DEFAULT_CONCURRENCY})`,
  parse: parseInteger('--concurrency', 1, MAX_CONCURRENCY),
};

const matchOption: OptionDef = { flags: '--match <glob>', description: "only projects whose full path matches (acme/**/api, repeatable)", parse: collect };
const excludeOption: OptionDef = { flags: '--exclude <glob>', description: 'leave out projects whose full path matches (repeatable)', parse: collect };
const projectsFileOption: OptionDef = { flags: '--projects-file <file>', description: 'the projects listed in this file (one ID or path a line; - for stdin)', localFile: true };

/** The selector's options; `group` is left out where a command's --group means something else. */
export function selectorOptions(withGroup = true): OptionDef[] {
  return [
    ...(withGroup ? [{ flags: '--group <id|path>', description: 'every project of this group, instead of --project' }] : []),
    { flags: '--recursive', description: "with --group: also the projects of its subgroups" },
    { flags: '--include-archived', description: 'with --group: archived projects too' },
    matchOption,
    excludeOption,
    projectsFileOption,
  ];
}

/** Sharding over several processes, and the rate budget they share. */
export const shardOptions: OptionDef[] = [
  { flags: '--shard <i/n>', description: 'work on shard I of N only, by a stable hash of the full path (default: from CI_NODE_INDEX/CI_NODE_TOTAL or JOB_COMPLETION_INDEX)', parse: parseShard },
  { flags: '--shard-total <n>', description: 'how many shards there are, with JOB_COMPLETION_INDEX (default: FORGECTL_SHARD_TOTAL)', parse: parseInteger('--shard-total', 1, MAX_SHARDS) },
  { flags: '--rate-limit <n[/seconds]>', description: 'send at most n requests per period (default 60 s) for the whole job: each of N shards takes 1/N', parse: parseRateLimit('--rate-limit') },
];

export const failedToOption: OptionDef = { flags: '--failed-to <file>', description: 'write the projects that failed to this file, one a line (rerun them with --projects-file)', localFile: true };

export const fleetRunOptions: OptionDef[] = [
  concurrencyOption,
  { flags: '--continue-on-error', description: 'keep going after a project fails (default: start no more projects)' },
  ...shardOptions,
  failedToOption,
];

export const FLEET_HELP_GROUP = 'Fleet (instead of --project):';

export const fleetOptions: OptionDef[] = [...selectorOptions(), ...fleetRunOptions];

/**
 * The fleet of a command whose --group names the group's own records (its variables, its members): the projects
 * are given by --projects-file alone, narrowed by --match and --exclude.
 */
export const projectsFileOptions: OptionDef[] = [projectsFileOption, matchOption, excludeOption, ...fleetRunOptions];

const longFlag = (option: OptionDef): string | undefined => /--[a-z][a-z-]*/.exec(option.flags)?.[0];
const fleetFlags = new Set(fleetOptions.map(longFlag));

/**
 * Whether a command takes the fleet selector: it works on one project (--project) and none of its own options
 * already means something else by a selector flag (the --group of tokens, the --recursive of repo tree).
 */
export function takesFleet(def: CommandDef): boolean {
  const options = def.options ?? [];
  return def.fleet === undefined && options.includes(projectOption) && !options.some((option) => fleetFlags.has(longFlag(option)));
}

/** Which fleet selector a command takes: the whole one, --projects-file alone (`fleet: 'projects-file'`), or none. */
export function fleetKind(def: CommandDef): FleetKind | undefined {
  if (def.fleet === 'projects-file') return 'projects-file';
  return takesFleet(def) ? 'selector' : undefined;
}

/** Generated verbs (plainCommands) of a resource whose --group is its own, taking a fleet by --projects-file. */
export function overProjectsFile<T extends Partial<Record<string, CommandDef>>>(commands: T): T {
  return Object.fromEntries(Object.entries(commands).map(([verb, def]) => [verb, def && { ...def, fleet: 'projects-file' as const }])) as T;
}

/** The fleet options a command gets besides its own. */
export function fleetOptionsOf(def: CommandDef): OptionDef[] {
  const kind = fleetKind(def);
  return kind === 'selector' ? fleetOptions : kind === 'projects-file' ? projectsFileOptions : [];
}
