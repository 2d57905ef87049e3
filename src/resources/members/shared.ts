import { liveOn, members, TOKEN_BOT } from './resource.js';
import { findUsers } from '../../api/lookups.js';
import type { ArgDef, Context, OptionDef } from '../../cli/command.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { routeOf, type ResourceDef } from '../../api/resource.js';
import { ApiError, CliError, DryRunComplete, ExitCode, UsageError } from '../../errors.js';
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

/**
 * The service's bare "404 Member Not Found" for someone who is no direct member of the place (their access may come
 * from a group above), said with `hint`; any other error (the place not found) as it is.
 */
export function notDirectMember(error: unknown, username: string, where: string, hint: string): unknown {
  if (!(error instanceof ApiError) || error.status !== 404 || !/member/i.test(error.message)) return error;
  return error.explained(`${username} is not a direct member of ${where}`, hint);
}

/** The option that names the place again in a command shown to the user: `--group acme`, `--project acme/api`. */
export const placeFlag = (params: Record<string, unknown>): string => (params.project === undefined ? `--group ${String(params.group)}` : `--project ${String(params.project)}`);

export interface UserRef {
  id: number;
  username: string;
}

/** Users by id or username, comma-separated or repeated (exit 5 naming those that do not exist, before any change). */
export async function resolveUsers(ctx: Context, given: string[]): Promise<UserRef[]> {
  const names = [...new Set(given.flatMap((item) => item.split(',')).map((item) => item.trim().replace(/^@/, '')).filter(Boolean))];
  if (!names.length) throw new UsageError('name at least one user (a username or an id)');
  const bad = names.find((name) => !/^[\w.-]+$/.test(name));
  if (bad) throw new UsageError(`"${bad}" is not a username or a user id`);
  return findUsers(ctx.api, names, true);
}

/** The record with its access level by name (`role`: developer), the column tables show. */
export const withRole = <M extends { access_level?: number }>(member: M): M & { role: string } => ({ ...member, role: accessLevelName(member.access_level) });

/** The fields members commands take for --fields: the service's and the role. */
export const memberFields = [...Object.keys(members.fields), ...members.computed];

/** "alice (Developer)". */
export const memberWords = (member: { username: string; access_level?: number }): string =>
  member.access_level === undefined ? member.username : `${member.username} (${accessLevelName(member.access_level)})`;

/** The records of the users done, and exit 9 naming the ones that failed (the others were still done). */
export function outcome(done: unknown[], failures: string[]): unknown {
  if (!failures.length) return done;
  return new ResultWithExit(done, ExitCode.attention, failures.join('\n'));
}

export const Role = { maintainer: 40, owner: 50 } as const;

/**
 * The same change for each user: one user is one change, whose failure is the command's error (its exit code and
 * message, and the `{"error":…}` object of -o json); several are a bulk, where a failure is reported and the others
 * are still done (exit 9).
 */
export async function eachUser<U extends { username: string }>(users: U[], change: (user: U) => Promise<unknown>): Promise<unknown> {
  if (users.length === 1) {
    const done = await change(users[0]);
    return done === undefined ? undefined : [done];
  }
  const done: unknown[] = [];
  const failures: string[] = [];
  let dryRun = false;
  for (const user of users) {
    try {
      const record = await change(user);
      if (record !== undefined) done.push(record);
    } catch (error) {
      // --dry-run prints each user's request, not only the first one's.
      if (error instanceof DryRunComplete) dryRun = true;
      else if (!(error instanceof ApiError) || error.status === 401) throw error;
      else failures.push(`${user.username}: ${error.message}${error.hint ? ` (${error.hint})` : ''}`);
    }
  }
  if (dryRun) throw new DryRunComplete();
  return outcome(done, failures);
}

/** The service's refusal with a hint for the statuses whose reason the command knows (the service says only "403 Forbidden"). */
export function explained(error: unknown, hints: Partial<Record<number, string>>): unknown {
  if (!(error instanceof ApiError) || !hints[error.status] || error.hint) return error;
  return error.explained(error.message, hints[error.status]);
}

/** A member as `/members/all` lists one, with what says whether a person can still act as the group's owner. */
interface OwnerCandidate {
  id: number;
  username: string;
  access_level: number;
  state?: string;
  membership_state?: string;
  expires_at?: string | null;
}

/**
 * Whether a member is an owner someone can still act as: an active account (not blocked, banned or deactivated), a
 * membership neither pending nor expired, and not the bot user of an access token (revoked or expired with it).
 */
function actingOwner(member: OwnerCandidate, today: string): boolean {
  return member.access_level === Role.owner
    && (member.state ?? 'active') === 'active'
    && (member.membership_state ?? 'active') === 'active'
    && liveOn(member.expires_at, today)
    && !TOKEN_BOT.test(member.username);
}

/**
 * The member among those to remove who is the only owner of the group (counting the owners it inherits from the
 * groups above, as the service does: it refuses to remove the last owner with a bare 403). Only owners someone can
 * act as count: a group whose other owners are blocked users or token bots would be left with nobody to manage it.
 */
export async function soleOwner(ctx: Context, resource: ResourceDef, params: Record<string, unknown>, leaving: Array<{ id: number; username: string; access_level: number }>): Promise<SoleOwner | undefined> {
  const owners = leaving.filter((member) => member.access_level === Role.owner);
  if (params.group === undefined || !owners.length) return undefined;
  const today = ctx.now().toISOString().slice(0, 10);
  const idle: string[] = [];
  for await (const member of ctx.api.list<OwnerCandidate>(routeOf(resource, 'all'), params, { all: true })) {
    if (owners.some((owner) => owner.id === member.id) || member.access_level !== Role.owner) continue;
    if (actingOwner(member, today)) return undefined;
    idle.push(member.username);
  }
  return { username: owners[0].username, idle };
}

/** The only owner someone can act as, and the other owners nobody can (blocked users, token bots), for the message. */
export interface SoleOwner {
  username: string;
  idle: string[];
}

/** " (nobody can act as the other owner, group_4_bot_x: blocked, expired or an access token's bot)", or nothing. */
const idleOwnersWords = (sole: SoleOwner): string => (sole.idle.length ? ` (nobody can act as the other ${sole.idle.length > 1 ? 'owners' : 'owner'}, ${sole.idle.join(', ')}: blocked, expired or an access token's bot)` : '');

/** The refusal to remove or demote a group's last owner (exit 4, as the service's bare 403), before anything is sent. */
export function lastOwnerError(sole: SoleOwner, where: string, group: unknown): CliError {
  return new CliError(`${sole.username} is the only owner of ${where}${idleOwnersWords(sole)}, and a group keeps at least one owner; nothing was sent`, ExitCode.auth, `make another member an owner first: forgectl members update USER --group ${String(group)} --access-level owner`);
}

/** The members a command works on: several at once. */
export const usersArg: ArgDef = { spec: '<users...>', description: 'usernames or user IDs, one or more' };
