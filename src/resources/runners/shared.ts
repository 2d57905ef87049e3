import { placed } from '../../api/resource.js';
import { RUNNER_STATUSES, RUNNER_TYPES, runners } from './resource.js';
import type { ArgDef, Context, OptionDef } from '../../cli/command.js';
import { parseId } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseList } from '../../parse.js';

/** Runners by id (get, update, delete, jobs, reset): the same routes whatever they belong to. */
export const byId = placed(runners, 'own');

export interface ScopeOptions {
  instance?: boolean;
  group?: string;
  project?: string;
}

export interface FilterOptions {
  type?: string;
  status?: string;
  paused?: boolean;
  tag?: string[];
}

export const scopeOptions: OptionDef[] = [
  { flags: '--instance', description: 'every runner of the instance (administrators)' },
  { flags: '--group <id|path>', description: 'the runners of this group, its parent groups and the instance\'s it may use' },
  { flags: '--project <id|path>', description: 'the runners this project may use: its own, its groups\' and the instance\'s' },
];

export const filterOptions: OptionDef[] = [
  { flags: '--type <type>', description: RUNNER_TYPES.join(', '), parse: parseChoice('--type', RUNNER_TYPES) },
  { flags: '--status <status>', description: RUNNER_STATUSES.join(', '), parse: parseChoice('--status', RUNNER_STATUSES) },
  { flags: '--paused', description: 'only paused runners' },
  { flags: '--tag <a,b>', description: 'only runners with all these tags', parse: parseList },
];

/**
 * The list a scope option names: the instance's (--instance), a group's, a project's, or, with none, the runners
 * you manage (of the groups and projects where you are Maintainer). A profile's default is never guessed here.
 */
export function runnerList(opts: ScopeOptions, ctx: Context): { route: string; params: Record<string, unknown>; where: string } {
  const given = [opts.instance, opts.group !== undefined, opts.project !== undefined].filter(Boolean).length;
  if (given > 1) throw new UsageError('give only one of --instance, --group and --project');
  if (opts.instance) return { route: runners.parents.instance.routes.list, params: {}, where: 'the instance' };
  if (opts.group !== undefined) return { route: runners.parents.group.routes.list, params: { group: ctx.group(opts.group) }, where: `group ${opts.group}` };
  if (opts.project !== undefined) return { route: runners.parents.project.routes.list, params: { project: ctx.project(opts.project) }, where: `project ${opts.project}` };
  return { route: runners.parents.own.routes.list, params: {}, where: 'the runners you manage' };
}

export const filterQuery = (opts: FilterOptions): Record<string, unknown> => ({ type: opts.type, status: opts.status, paused: opts.paused || undefined, tag_list: opts.tag?.join(',') });

/** A runner id from the command line (a positive whole number), checked before anything is sent. */
export const runnerId = (text: string): number => parseId(byId, text) as number;

/** "runner 7 (api-gpu)": how messages name a runner. */
export const describeRunner = (runner: { id: number; description?: string | null }): string => `runner ${runner.id}${runner.description ? ` ("${runner.description}")` : ''}`;

export const runnerIdArg: ArgDef = { spec: '<id>', description: 'the runner\'s ID' };

/** What a runner's details say of whose it is; `projects` and `groups` may be missing (older instances, other types). */
export interface RunnerOwners {
  runner_type: string;
  projects?: Array<{ id?: number; path_with_namespace: string }> | null;
  groups?: Array<{ id?: number; name: string }> | null;
}

/** Its groups' names or its projects' paths ([] for an instance runner, or when the record does not say). */
export function runnerOwners(runner: RunnerOwners): string[] {
  if (runner.runner_type === 'group_type') return (runner.groups ?? []).map((group) => group.name);
  if (runner.runner_type === 'project_type') return (runner.projects ?? []).map((project) => project.path_with_namespace);
  return [];
}
