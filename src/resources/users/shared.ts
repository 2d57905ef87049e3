import { users } from './resource.js';
import { groups } from '../groups/resource.js';
import { members } from '../members/resource.js';
import type { ArgDef, Context } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';

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

/** The user given by id or username (`@alice` too); exit 5 naming it when there is none. */
export async function userRecord(ctx: Context, given: string): Promise<UserRecord> {
  let id = given.trim().replace(/^@/, '');
  if (!/^\d+$/.test(id)) {
    const [found] = await ctx.api.call<Array<{ id: number }>>(users.routes.list, { username: id });
    if (!found) throw new CliError(`no user named "${given}"`, ExitCode.notFound, 'check the name with: forgectl users list --search NAME');
    id = String(found.id);
  }
  return ctx.api.call<UserRecord>(users.routes.get, { user: id });
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
export async function directMemberships(ctx: Context, userId: number): Promise<Membership[]> {
  const found: Membership[] = [];
  for await (const membership of ctx.api.list<Membership>(users.routes.memberships, { user: userId }, { all: true })) found.push(membership);
  return found;
}

const OWNER = 50;

/**
 * The groups the user alone owns, with their full paths: a direct Owner membership, and no other direct owner in the
 * group or the groups above it (as the service counts them: it refuses to delete such a user, or to remove a group's
 * last owner).
 */
export async function soleOwnedGroups(ctx: Context, userId: number, memberships: Membership[]): Promise<Array<{ id: number; full_path: string }>> {
  const owned = memberships.filter((m) => m.source_type === 'Namespace' && m.access_level >= OWNER);
  const sole: Array<{ id: number; full_path: string }> = [];
  for (const membership of owned) {
    const group = await ctx.api.call<{ id: number; full_path: string }>(groups.routes.get, { group: membership.source_id, with_projects: false });
    const chain = group.full_path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    let others = false;
    for (const path of chain) {
      for await (const member of ctx.api.list<{ id: number; access_level: number }>(members.parents.group.routes.list, { group: path }, { all: true })) {
        if (member.access_level >= OWNER && member.id !== userId) others = true;
      }
      if (others) break;
    }
    if (!others) sole.push(group);
  }
  return sole;
}
