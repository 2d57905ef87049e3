import { users } from './resource.js';
import { groups } from '../groups/resource.js';
import { members } from '../members/resource.js';
import { projects } from '../projects/resource.js';
import type { Api } from '../../api/client.js';
import type { ArgDef, Context } from '../../cli/command.js';
import { placementFor } from '../../cli/resource-commands.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { soleOwner } from '../members/shared.js';

/**
 * What the users commands share: a user named by id or username, read whole (an administrator sees the state, the
 * last activity and the identities the moderation commands check).
 */

/** A user record as an administrator reads it (the fields the commands use). */
export interface UserRecord {
  id: number;
  username: string;
  name: string;
  state: string;
  is_admin?: boolean;
  external?: boolean;
  bot?: boolean;
  last_activity_on?: string | null;
  [key: string]: unknown;
}

export const userArg: ArgDef = { spec: '<user>', description: 'the user: username or ID' };

/**
 * The user given by id or username (`@alice` too); exit 5 naming it when there is none. Only that exact username
 * matches: the service answers an empty or unknown `username` filter with other users, and a script's empty "$USER"
 * must not block or delete whoever comes first.
 */
export async function userRecord(ctx: Context, given: string): Promise<UserRecord> {
  let id = given.trim().replace(/^@/, '');
  if (!id) throw new UsageError('no user given: name the user by username or ID; nothing was sent', 'check the name with: forgectl users list --search NAME');
  if (!/^\d+$/.test(id)) {
    const named = id.toLowerCase();
    const found = (await ctx.api.call<Array<{ id: number; username: string }>>(users.routes.list, { username: id })).find((user) => user.username.toLowerCase() === named);
    if (!found) throw new CliError(`no user named "${given}"`, ExitCode.notFound, 'check the name with: forgectl users list --search NAME');
    id = String(found.id);
  }
  return ctx.api.call<UserRecord>(users.routes.get, { user: id });
}

/**
 * Refuses to lock out the caller's own account (block, ban, deactivate, delete, offboard) before anything changes:
 * the service lets an administrator's token ban or delete its own user, and with it the instance's last way in.
 */
export async function notYourself(ctx: Context, user: Pick<UserRecord, 'id' | 'username'>, doing: string): Promise<void> {
  const caller = await ctx.api.call<{ id: number }>(users.routes.current, {});
  if (caller.id === user.id) throw new UsageError(`you cannot ${doing} yourself: the token in use is ${user.username}'s own, and it would lock you out; nothing was sent`, 'run it with the token of another administrator');
}

/** "alice (Alice Liddell)". */
export const userWords = (user: Pick<UserRecord, 'username' | 'name'>): string => (user.name && user.name !== user.username ? `${user.username} (${user.name})` : user.username);

/** A direct membership as the service lists a user's (`source_type` Namespace is a group). */
export interface Membership {
  source_id: number;
  source_name: string;
  source_type: 'Namespace' | 'Project';
  access_level: number;
}

/** The groups and projects the user is a direct member of (administrators). */
export async function directMemberships(api: Api, userId: number): Promise<Membership[]> {
  return api.list<Membership>(users.routes.memberships, { user: userId }, { all: true }).toArray();
}

const OWNER = 50;

/**
 * Whether the user is the only owner of a group, counting the owners it inherits from the groups above (as the
 * service does: it refuses to delete such a user, or to remove a group's last owner).
 */
export async function isSoleOwner(ctx: Context, groupId: number, user: { id: number; username: string }): Promise<boolean> {
  const { resource, params } = placementFor(members, { group: String(groupId) }, ctx);
  return (await soleOwner(ctx, resource, params, [{ ...user, access_level: OWNER }])) !== undefined;
}

/** The groups the user alone owns (of their direct memberships), with their full paths. */
export async function soleOwnedGroups(ctx: Context, user: { id: number; username: string }, memberships: Membership[]): Promise<Array<{ id: number; full_path: string }>> {
  const sole: Array<{ id: number; full_path: string }> = [];
  for (const membership of memberships.filter((m) => m.source_type === 'Namespace' && m.access_level >= OWNER)) {
    if (await isSoleOwner(ctx, membership.source_id, user)) sole.push(await ctx.api.call<{ id: number; full_path: string }>(groups.routes.get, { group: membership.source_id, with_projects: false }));
  }
  return sole;
}

/** The paths of the projects in the user's own namespace. */
export async function personalProjects(api: Api, userId: number): Promise<string[]> {
  const paths: string[] = [];
  for await (const project of api.list<{ path_with_namespace: string }>(projects.routes.ofUser, { user: userId, simple: true }, { all: true })) paths.push(project.path_with_namespace);
  return paths;
}

/** "a, b, c, … (4 more)". */
export const someOf = (names: string[], shown = 5): string => (names.length > shown ? `${names.slice(0, shown).join(', ')}, … (${names.length - shown} more)` : names.join(', '));
