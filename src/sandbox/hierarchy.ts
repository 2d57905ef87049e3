import { liveOn } from '../resources/members/resource.js';
import type { Db } from './db.js';
import { groups, members, projects, USER_NAMESPACE_BASE, users, type Group, type GroupLink, type Member, type Project, type User } from './model.js';

/** Groups, subgroups and personal namespaces: where projects live and what they inherit from. */

export function groupById(db: Db, id: number | null): Group | undefined {
  return id === null ? undefined : groups(db).find((g) => g.id === id);
}

export function projectById(db: Db, id: number): Project | undefined {
  return projects(db).find((p) => p.id === id);
}

/** The group and its ancestors, nearest first. */
export function groupChain(db: Db, groupId: number | null): Group[] {
  const chain: Group[] = [];
  for (let group = groupById(db, groupId); group; group = groupById(db, group.parent_id)) chain.push(group);
  return chain;
}

/** Every subgroup below the group, at any depth (parents before their children). */
export function descendantGroups(db: Db, groupId: number): Group[] {
  const children = new Map<number, Group[]>();
  for (const group of groups(db)) {
    if (group.parent_id !== null) children.set(group.parent_id, [...(children.get(group.parent_id) ?? []), group]);
  }
  const found: Group[] = [];
  const queue = [...(children.get(groupId) ?? [])];
  while (queue.length) {
    const group = queue.shift()!;
    found.push(group);
    queue.push(...(children.get(group.id) ?? []));
  }
  return found;
}

/** The user whose personal namespace holds the project, if it is not in a group. */
export function namespaceOwner(db: Db, project: Project): User | undefined {
  if (project.namespace_id <= USER_NAMESPACE_BASE) return undefined;
  return users(db).find((u) => u.id === project.namespace_id - USER_NAMESPACE_BASE);
}

/** The group a project belongs to (undefined for a personal project). */
export function projectGroup(db: Db, project: Project): Group | undefined {
  return project.namespace_id > USER_NAMESPACE_BASE ? undefined : groupById(db, project.namespace_id);
}

/** "Acme / Platform": the names of a group and its ancestors, as the service shows full_name. */
export function fullName(db: Db, group: Group): string {
  return groupChain(db, group.id).reverse().map((g) => g.name).join(' / ');
}

/** After a group was renamed or moved: the full paths of it, its subgroups and their projects follow. */
export function refreshPaths(db: Db, group: Group): void {
  for (const g of [group, ...descendantGroups(db, group.id)]) {
    const parent = groupById(db, g.parent_id);
    g.full_path = parent ? `${parent.full_path}/${g.path}` : g.path;
    for (const project of projects(db).filter((p) => p.namespace_id === g.id)) project.path_with_namespace = `${g.full_path}/${project.path}`;
  }
}

/** The direct memberships of a group or project. */
export const directMembers = (db: Db, type: 'group' | 'project', id: number): Member[] => members(db).filter((m) => m.source_type === type && m.source_id === id);


/** A group link's members at most at the link's level, until the link's expiry when it ends first. */
function capped(link: GroupLink, list: Member[]): Member[] {
  return list.map((m) => ({ ...m, access_level: Math.min(m.access_level, link.group_access_level), expires_at: !link.expires_at || (m.expires_at && m.expires_at < link.expires_at) ? (m.expires_at ?? null) : link.expires_at.slice(0, 10) }));
}

/** The links of a group or project that still give access on the day. */
const liveLinks = (links: GroupLink[] | undefined, day: string): GroupLink[] => (links ?? []).filter((link) => liveOn(link.expires_at, day));

/**
 * Every way users reach a group, as the service documents group sharing: the direct memberships of the group and
 * of the groups above it, and the direct members (only those) of the groups it or a group above is shared with, at
 * most at the link's level.
 */
export function groupMembershipPaths(db: Db, group: Group, day: string): Member[] {
  const chain = groupChain(db, group.id);
  const invited = chain.flatMap((g) => liveLinks(g.shared_with_groups, day).flatMap((link) => capped(link, directMembers(db, 'group', link.group_id))));
  return [...chain.flatMap((g) => directMembers(db, 'group', g.id)), ...invited];
}

/**
 * Every way users reach a project: its direct members (the owner of a personal namespace among them), every way into
 * its group, and the groups it is shared with — their direct and inherited members, and the direct members of the
 * groups shared with them — at most at the link's level.
 */
export function projectMembershipPaths(db: Db, project: Project, day: string): Member[] {
  const group = projectGroup(db, project);
  const owner = namespaceOwner(db, project);
  const personal: Member[] = owner ? [{ source_type: 'project', source_id: project.id, user_id: owner.id, access_level: 50, created_at: project.created_at }] : [];
  const invited = liveLinks(project.shared_with_groups, day).flatMap((link) => {
    const shared = groupById(db, link.group_id);
    if (!shared) return [];
    const ofShared = groupChain(db, shared.id).flatMap((g) => directMembers(db, 'group', g.id));
    const sharedIntoIt = liveLinks(shared.shared_with_groups, day).flatMap((inner) => capped(inner, directMembers(db, 'group', inner.group_id)));
    return capped(link, [...ofShared, ...sharedIntoIt]);
  });
  return [...directMembers(db, 'project', project.id), ...personal, ...(group ? groupMembershipPaths(db, group, day) : []), ...invited];
}
