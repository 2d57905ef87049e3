import type { Db } from './db.js';
import { avatarUrl, groups, projects, USER_NAMESPACE_BASE, users, type Group, type Project, type User } from './model.js';

/** Groups, subgroups and personal namespaces: where projects live and what they inherit from. */

export function groupById(db: Db, id: number | null): Group | undefined {
  return id === null ? undefined : groups(db).find((g) => g.id === id);
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

/** The namespace of a project, in the NamespaceBasic shape the service embeds in project records. */
export function presentNamespace(db: Db, project: Project, rootUrl: string): Record<string, unknown> | null {
  const group = projectGroup(db, project);
  if (group) {
    return {
      id: group.id, name: group.name, path: group.path, kind: 'group', full_path: group.full_path, parent_id: group.parent_id,
      avatar_url: avatarUrl(rootUrl, 'group', group), web_url: `${rootUrl}/groups/${group.full_path}`,
    };
  }
  const owner = namespaceOwner(db, project);
  if (!owner) return null;
  return {
    id: project.namespace_id, name: owner.name, path: owner.username, kind: 'user', full_path: owner.username, parent_id: null,
    avatar_url: `${rootUrl}/uploads/-/system/user/avatar/${owner.id}/avatar.png`, web_url: `${rootUrl}/${owner.username}`,
  };
}

/** After a group was renamed or moved: the full paths of it, its subgroups and their projects follow. */
export function refreshPaths(db: Db, group: Group): void {
  for (const g of [group, ...descendantGroups(db, group.id)]) {
    const parent = groupById(db, g.parent_id);
    g.full_path = parent ? `${parent.full_path}/${g.path}` : g.path;
    for (const project of projects(db).filter((p) => p.namespace_id === g.id)) project.path_with_namespace = `${g.full_path}/${project.path}`;
  }
}
