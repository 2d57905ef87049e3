import { membersSection } from '../../resources/members/desired.js';
import type { AccessRow, Place } from './grants.js';
import type { AccessReader } from './read.js';

/**
 * The report as a desired-state file of members: for each group and project, its direct members and the groups it
 * is shared with, as they are, with `enforce: true` — planned against the instance it shows no changes, and any
 * member added, changed or removed since is a change of the plan that `apply` undoes. Inherited and shared access is
 * the business of the groups it comes from, as it is in the members section.
 */
export async function desiredMembers(places: Place[], rows: AccessRow[], reader: AccessReader): Promise<Record<string, unknown>> {
  const document: Record<string, Record<string, unknown>> = {};
  for (const place of places) {
    const direct = rows.filter((row) => row.via === 'direct' && row.place_type === place.kind && row.place === place.path);
    const users = Object.fromEntries(direct.map((row) => [row.user, wanted(row.access_level, row.expires_at)]));
    // A subgroup listed below its group comes without its shares: they are in its own record, read for its ways in.
    const links = place.kind === 'group' ? (await reader.group(place.id)).links : place.links;
    const shared = Object.fromEntries(links.map((link) => [link.group_full_path, wanted(link.group_access_level, link.expires_at)]));
    const members = { enforce: true, users: membersSection.fields.users.toFile!(users), ...(links.length ? { groups: membersSection.fields.groups.toFile!(shared) } : {}) };
    (document[`${place.kind}s`] ??= {})[place.path] = { members };
  }
  return { version: 1, ...document };
}

const wanted = (access_level: number, expires_at: string | null): { access_level: number; expires_at?: string } => (expires_at ? { access_level, expires_at: expires_at.slice(0, 10) } : { access_level });
