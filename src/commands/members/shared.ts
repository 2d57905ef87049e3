import { members } from '../../api/resources/members.js';
import { findUsers } from '../../api/lookups.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { concurrencyOption, failedToOption } from '../../cli/fleet-options.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { accessLevelName, collect } from '../../parse.js';

/** What the members commands share: where (--project or --group, or a fleet of projects), and users by name or id. */

export interface Where {
  project?: string;
  group?: string;
  projectsFile?: string;
  match?: string[];
  exclude?: string[];
}

/** --project or --group, and the fleet of projects instead of --project (--projects-file; --group names the members' group). */
export const whereOptions: OptionDef[] = [
  ...placementOptions(members),
  { flags: '--projects-file <file>', description: 'every project listed in this file (one ID or path a line; - for stdin), instead of --project' },
  { flags: '--match <glob>', description: 'with --projects-file: only projects whose full path matches (repeatable)', parse: collect },
  { flags: '--exclude <glob>', description: 'with --projects-file: leave out projects whose full path matches (repeatable)', parse: collect },
  concurrencyOption,
  { flags: '--continue-on-error', description: 'with --projects-file: keep going after a project fails' },
  failedToOption,
];

/** The placement of the members the options name: routes, parameters, and "project acme/api" for messages. */
export function placementOf(opts: Where, ctx: Context) {
  if (opts.project !== undefined && opts.group !== undefined) throw new UsageError('give --project or --group, not both');
  return placementFor(members, opts, ctx);
}

/**
 * The command run once per project of --projects-file (as the fleet commands are), or once where the options say.
 * `self` is the command's own run.
 */
export async function perWhere<O extends Where>(opts: O, ctx: Context, path: string, self: { run: (opts: O, ctx: Context) => Promise<unknown> }, once: () => Promise<unknown>): Promise<unknown> {
  if (opts.projectsFile === undefined || opts.project !== undefined) {
    const stray = (['match', 'exclude', 'concurrency', 'continueOnError', 'failedTo'] as const).filter((key) => (opts as Record<string, unknown>)[key] !== undefined);
    if (stray.length && opts.projectsFile === undefined) throw new UsageError(`${stray.map((key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} appl${stray.length === 1 ? 'ies' : 'y'} to --projects-file`);
    return once();
  }
  if (opts.group !== undefined) throw new UsageError('give --group or --projects-file, not both', '--group names the group whose members to change; --projects-file lists projects');
  const { runFleet } = await import('../../cli/fleet.js');
  return runFleet({ examples: [], run: self.run as never }, opts as never, ctx, path);
}

export interface UserRef {
  id: number;
  username: string;
}

/** Users by id or username, comma-separated or repeated (exit 2 naming those that do not exist, before any change). */
export async function resolveUsers(ctx: Context, given: string[]): Promise<UserRef[]> {
  const names = [...new Set(given.flatMap((item) => item.split(',')).map((item) => item.trim().replace(/^@/, '')).filter(Boolean))];
  if (!names.length) throw new UsageError('name at least one user (a username or an id)');
  const bad = names.find((name) => !/^[\w.-]+$/.test(name));
  if (bad) throw new UsageError(`"${bad}" is not a username or a user id`);
  return findUsers(ctx.api, names);
}

/** "alice (Developer)". */
export const memberWords = (member: { username: string; access_level?: number }): string =>
  member.access_level === undefined ? member.username : `${member.username} (${accessLevelName(member.access_level)})`;

/** The records of the users done, and exit 9 naming the ones that failed (the others were still done). */
export function outcome(done: unknown[], failures: string[]): unknown {
  if (!failures.length) return done;
  return new ResultWithExit(done, ExitCode.attention, failures.join('\n'));
}
