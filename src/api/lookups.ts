import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import type { Api } from './client.js';
import { projects as projectsDecl } from '../resources/projects/resource.js';
import { groups as groupsDecl } from '../resources/groups/resource.js';
import { users as usersDecl } from '../resources/users/resource.js';
import { pluralNoun } from '../parse.js';
import { roleWord, whoText, type AccessEntry, type AllowedEntry, type Who } from '../resources/protected-branches/values.js';

/**
 * Usernames (or user IDs) as users, checked before anything changes: the service silently leaves unknown users out of
 * an approval rule, which can leave a rule that nobody can approve. A name that is a value (of an option, in a file)
 * and names nobody is exit 2; `subjects`, the users a command is about (its arguments), are exit 5, as `users get`.
 */
export async function findUsers(api: Api, users: string[], subjects = false): Promise<Array<{ id: number; username: string }>> {
  const unknown: string[] = [];
  const found = await Promise.all(
    users.map(async (user) => {
      const one = /^\d+$/.test(user)
        ? await api.call<{ id: number; username: string }>(usersDecl.routes.get, { user }).catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return undefined;
            throw error;
          })
        : (await api.call<Array<{ id: number; username: string }>>(usersDecl.routes.list, { username: user })).find((u) => u.username.toLowerCase() === user.toLowerCase());
      if (!one) unknown.push(user);
      return one;
    }),
  );
  if (unknown.length && subjects) {
    throw new CliError(`no ${pluralNoun(unknown.length, 'user')} named ${unknown.map((name) => `"${name}"`).join(', ')}`, ExitCode.notFound, 'nothing was changed; check the names with: forgectl users list --search NAME');
  }
  if (unknown.length) throw new UsageError(`unknown ${pluralNoun(unknown.length, 'user')}: ${unknown.join(', ')}`, 'nothing was changed; check the names with: forgectl users list');
  const unique = new Map(found.map((user) => [user!.id, { id: user!.id, username: user!.username }]));
  return [...unique.values()];
}

/**
 * The caller's role in a project, as a level (50 for an administrator): what the project's own record says of the
 * caller's membership (`permissions`), then whether the caller administers the instance. Lets a command say before
 * sending what the service will refuse (Developers do not delete protected branches and tags).
 */
export async function callerLevel(api: Api, project: string): Promise<number> {
  const record = await api.call<{ permissions?: { project_access?: { access_level?: number } | null; group_access?: { access_level?: number } | null } | null }>(projectsDecl.routes.get, { project });
  const level = Math.max(record.permissions?.project_access?.access_level ?? 0, record.permissions?.group_access?.access_level ?? 0);
  if (level >= 50) return level;
  return (await api.call<{ is_admin?: boolean }>(usersDecl.routes.current)).is_admin ? 50 : level;
}

/** Whether the token in use is an administrator's; undefined when /user does not say (a job token, a failure). */
export async function isAdministrator(api: Api): Promise<boolean | undefined> {
  try {
    return (await api.call<{ is_admin?: boolean }>(usersDecl.routes.current)).is_admin === true;
  } catch {
    return undefined;
  }
}

/** Usernames (or user IDs) as IDs (unknown ones refused, as findUsers does). */
export async function userIds(api: Api, users: string[]): Promise<number[]> {
  return (await findUsers(api, users)).map((user) => user.id);
}

/** Group full paths (or IDs) as IDs. */
export async function groupIds(api: Api, groups: string[]): Promise<number[]> {
  return Promise.all(groups.map(async (g) => (/^\d+$/.test(g) ? Number(g) : (await api.call<{ id: number }>(groupsDecl.routes.get, { group: g })).id)));
}

/** The service's entries for the `who`s: users and groups resolved to IDs (all of them, or a usage error naming the unknown ones). */
export async function allowedEntries(api: Api, whos: Who[]): Promise<AllowedEntry[]> {
  const users = [...new Set(whos.flatMap((who) => ('user' in who ? [who.user] : [])))];
  const groups = [...new Set(whos.flatMap((who) => ('group' in who ? [who.group] : [])))];
  const [userIdList, groupIdList] = await Promise.all([eachUser(api, users), Promise.all(groups.map((group) => knownGroup(api, group)))]);
  const userId = new Map(users.map((name, i) => [name, userIdList[i]]));
  const groupId = new Map(groups.map((name, i) => [name, groupIdList[i]]));
  const entries = whos.map((who): AllowedEntry => {
    if ('role' in who) return { access_level: who.role };
    if ('user' in who) return { user_id: userId.get(who.user)! };
    if ('group' in who) return { group_id: groupId.get(who.group)! };
    return { deploy_key_id: who.deployKey };
  });
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = JSON.stringify(entry);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** Usernames as IDs in their order (two names of one user both kept); the unknown ones all named in one usage error. */
async function eachUser(api: Api, users: string[]): Promise<number[]> {
  const unknown: string[] = [];
  const ids = await Promise.all(users.map((user) => userIds(api, [user]).then(([id]) => id, (error: unknown) => {
    if (!(error instanceof UsageError)) throw error;
    unknown.push(user);
    return 0;
  })));
  if (unknown.length) await userIds(api, unknown); // throws the one message naming them all
  return ids;
}

/** A group path as its ID; an unknown one a usage error (nothing is changed). */
async function knownGroup(api: Api, group: string): Promise<number> {
  try {
    return (await groupIds(api, [group]))[0];
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new UsageError(`unknown group: ${group}`, 'nothing was changed; check the paths with: forgectl groups list');
    throw error;
  }
}

/** Names of users and groups by ID, looked up once per run. */
export class WhoNames {
  private readonly users = new Map<number, Promise<string>>();
  private readonly groups = new Map<number, Promise<string>>();
  constructor(private readonly api: Api) {}

  /** An entry the service presents, as a `who` in text: `maintainer`, `user:alice`, `group:acme/devs`, `deploy-key:3`. */
  async of(entry: AccessEntry): Promise<string> {
    const { user_id, group_id } = entry;
    if (user_id != null) return `user:${await this.name(this.users, user_id, () => this.api.call(usersDecl.routes.get, { user: user_id }), 'username')}`;
    if (group_id != null) return `group:${await this.name(this.groups, group_id, () => this.api.call(groupsDecl.routes.get, { group: group_id }), 'full_path')}`;
    if (entry.deploy_key_id != null) return `deploy-key:${entry.deploy_key_id}`;
    return roleWord(entry.access_level);
  }

  private name(cache: Map<number, Promise<string>>, id: number, read: () => Promise<unknown>, field: string): Promise<string> {
    let known = cache.get(id);
    if (!known) {
      known = read().then((record) => String((record as Record<string, unknown>)[field] ?? id), () => String(id));
      cache.set(id, known);
    }
    return known;
  }
}

/**
 * Who access entries allow, in the words the options take (`maintainer, user:alice, group:acme/devs,
 * deploy-key:3`): the service names users and groups only by id (and a display name), so their usernames and paths
 * are read once each per run. One that cannot be read (gone, not visible) stays its id, which the options take too.
 */
export class EntryNames {
  private readonly users = new Map<number, Promise<string>>();
  private readonly groups = new Map<number, Promise<string>>();

  constructor(private readonly api: Api) {}

  /** The words for each list of entries, once the names they need are read. */
  async describe(lists: Array<Array<Partial<AccessEntry>> | null | undefined>): Promise<string[]> {
    // Roles first, then users, groups and deploy keys, as one writes them.
    const isRole = (entry: Partial<AccessEntry>) => entry.user_id == null && entry.group_id == null && entry.deploy_key_id == null;
    const ordered = (entries: Array<Partial<AccessEntry>>) => [...entries.filter(isRole), ...entries.filter((entry) => !isRole(entry))];
    return Promise.all(lists.map(async (entries) => (await Promise.all(ordered(entries ?? []).map((entry) => this.who(entry)))).join(', ')));
  }

  private async who(entry: Partial<AccessEntry>): Promise<string> {
    if (entry.user_id != null) return whoText({ user: await this.named(this.users, entry.user_id, async (id) => (await this.api.call<{ username: string }>(usersDecl.routes.get, { user: id })).username) });
    if (entry.group_id != null) return whoText({ group: await this.named(this.groups, entry.group_id, async (id) => (await this.api.call<{ full_path: string }>(groupsDecl.routes.get, { group: id })).full_path) });
    if (entry.deploy_key_id != null) return whoText({ deployKey: entry.deploy_key_id });
    return entry.access_level === undefined ? (entry.access_level_description ?? '') : roleWord(entry.access_level);
  }

  private named(cache: Map<number, Promise<string>>, id: number, read: (id: number) => Promise<string>): Promise<string> {
    let name = cache.get(id);
    if (!name) {
      name = read(id).catch((error: unknown) => {
        if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return String(id);
        throw error;
      });
      cache.set(id, name);
    }
    return name;
  }
}
