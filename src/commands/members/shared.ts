import { members } from '../../api/resources/members.js';
import { findUsers } from '../../api/lookups.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { accessLevelName } from '../../parse.js';

/**
 * What the members commands share: where (--project or --group; a fleet of projects by --projects-file instead of
 * --project), and users by name or id.
 */

export interface Where {
  project?: string;
  group?: string;
}

/** --project or --group (the members' group: a fleet of projects comes by --projects-file). */
export const whereOptions: OptionDef[] = placementOptions(members);

/** The placement of the members the options name: routes, parameters, and "project acme/api" for messages. */
export function placementOf(opts: Where, ctx: Context) {
  if (opts.project !== undefined && opts.group !== undefined) throw new UsageError('give --project or --group, not both');
  return placementFor(members, opts, ctx);
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
