import { ApiError, UsageError } from '../errors.js';
import type { Api } from './client.js';
import { p } from './path.js';
import { pluralNoun } from '../parse.js';

/**
 * Usernames (or user IDs) as users, checked before anything changes: the service silently leaves unknown users out of
 * an approval rule, which can leave a rule that nobody can approve.
 */
export async function findUsers(api: Api, users: string[]): Promise<Array<{ id: number; username: string }>> {
  const unknown: string[] = [];
  const found = await Promise.all(
    users.map(async (user) => {
      const one = /^\d+$/.test(user)
        ? await api.get<{ id: number; username: string }>(p`/users/${user}`).catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return undefined;
            throw error;
          })
        : (await api.get<Array<{ id: number; username: string }>>('/users', { username: user })).find((u) => u.username.toLowerCase() === user.toLowerCase());
      if (!one) unknown.push(user);
      return one;
    }),
  );
  if (unknown.length) throw new UsageError(`unknown ${pluralNoun(unknown.length, 'user')}: ${unknown.join(', ')}`, 'nothing was changed; check the names with: forgectl users list');
  const unique = new Map(found.map((user) => [user!.id, { id: user!.id, username: user!.username }]));
  return [...unique.values()];
}

/** Usernames (or user IDs) as IDs (unknown ones refused, as findUsers does). */
export async function userIds(api: Api, users: string[]): Promise<number[]> {
  return (await findUsers(api, users)).map((user) => user.id);
}

/** Group full paths (or IDs) as IDs. */
export async function groupIds(api: Api, groups: string[]): Promise<number[]> {
  return Promise.all(groups.map(async (g) => (/^\d+$/.test(g) ? Number(g) : (await api.get<{ id: number }>(p`/groups/${g}`)).id)));
}
