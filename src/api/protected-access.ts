import { ApiError, UsageError } from '../errors.js';
import { accessLevelName, parseAccessLevel } from '../parse.js';
import type { Api } from './client.js';
import { groupIds, userIds } from './lookups.js';
import { p } from './path.js';

/**
 * Who may push, merge, unprotect (protected branches) or create (protected tags): a role, a user, a group or a
 * deploy key. One grammar for the command line and desired-state files — `maintainer`, `no-access`, `user:alice`,
 * `group:acme/devs`, `deploy-key:3` (users and groups by name or ID) — resolved to the service's entries
 * (`{access_level}`, `{user_id}`, `{group_id}`, `{deploy_key_id}`) before anything is sent.
 */

/** One entry as the service presents it. */
export interface AccessEntry {
  id: number;
  access_level: number;
  access_level_description: string;
  user_id?: number | null;
  group_id?: number | null;
  deploy_key_id?: number | null;
}

/** One entry as the service takes it in allowed_to_push, allowed_to_merge, allowed_to_unprotect, allowed_to_create. */
export type AllowedEntry = { access_level: number } | { user_id: number } | { group_id: number } | { deploy_key_id: number };

export type Who = { role: number } | { user: string } | { group: string } | { deployKey: number };

/** The administrator level of protected branches. */
export const ADMIN_LEVEL = 60;

/** A role in words: maintainer, developer, no-access, admin. */
export const roleWord = (level: number): string => (level === 0 ? 'no-access' : level === ADMIN_LEVEL ? 'admin' : accessLevelName(level));

/** The levels in words for messages: "no-access, developer, maintainer". */
const levelWords = (levels: number[]): string => levels.map(roleWord).join(', ');

/** One `who` from text; `levels` are the roles the place accepts, `kinds` whether users, groups and deploy keys may be named. */
export function parseWho(text: string, label: string, levels: number[], kinds: { deployKeys?: boolean } = {}): Who {
  const item = text.trim();
  const named = /^(user|group|deploy-key|deploy_key):(.+)$/i.exec(item);
  if (named) {
    const kind = named[1].toLowerCase();
    const value = named[2].trim();
    if (kind === 'user' && value) return { user: value.replace(/^@/, '') };
    if (kind === 'group' && value) return { group: value };
    if (kind !== 'user' && kind !== 'group' && kinds.deployKeys && /^\d+$/.test(value)) return { deployKey: Number(value) };
  } else {
    const lower = item.toLowerCase();
    if ((lower === 'admin' || lower === 'administrator') && levels.includes(ADMIN_LEVEL)) return { role: ADMIN_LEVEL };
    try {
      return { role: parseAccessLevel(label, levels)(item) };
    } catch {
      // said below, with the other forms
    }
  }
  const forms = ['user:NAME', 'group:PATH', ...(kinds.deployKeys ? ['deploy-key:ID'] : [])].join(', ');
  throw new UsageError(`${label} takes ${forms} or a role (${levelWords(levels)}); got "${item}"`);
}

/** A comma-separated, repeatable option of `who`s. */
export function parseWhoList(label: string, levels: number[], kinds: { deployKeys?: boolean } = {}): (value: string, previous?: Who[]) => Who[] {
  return (value, previous = []) => [...previous, ...value.split(',').map((item) => item.trim()).filter(Boolean).map((item) => parseWho(item, label, levels, kinds))];
}

/** A `who` as text, the form exports and plans write. */
export function whoText(who: Who): string {
  if ('role' in who) return roleWord(who.role);
  if ('user' in who) return `user:${who.user}`;
  if ('group' in who) return `group:${who.group}`;
  return `deploy-key:${who.deployKey}`;
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
    if (entry.user_id != null) return `user:${await this.name(this.users, entry.user_id, p`/users/${entry.user_id}`, 'username')}`;
    if (entry.group_id != null) return `group:${await this.name(this.groups, entry.group_id, p`/groups/${entry.group_id}`, 'full_path')}`;
    if (entry.deploy_key_id != null) return `deploy-key:${entry.deploy_key_id}`;
    return roleWord(entry.access_level);
  }

  private name(cache: Map<number, Promise<string>>, id: number, path: string, field: string): Promise<string> {
    let known = cache.get(id);
    if (!known) {
      known = this.api.get<Record<string, unknown>>(path).then((record) => String(record[field] ?? id), () => String(id));
      cache.set(id, known);
    }
    return known;
  }
}

/** Who an entry list allows, in words, for tables: "Maintainers, Alice". */
export const describeEntries = (entries: AccessEntry[] | undefined): string => (entries ?? []).map((entry) => entry.access_level_description ?? '').filter(Boolean).join(', ');
