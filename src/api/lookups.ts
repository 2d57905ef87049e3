import { ApiError, UsageError } from '../errors.js';
import type { Api } from './client.js';
import { p } from './path.js';
import { pluralNoun } from '../parse.js';

/**
 * Usernames (or user IDs) as IDs, checked before anything changes: the service silently leaves unknown users out of
 * an approval rule, which can leave a rule that nobody can approve.
 */
export async function userIds(api: Api, users: string[]): Promise<number[]> {
  const unknown: string[] = [];
  const ids = await Promise.all(
    users.map(async (user) => {
      const found = /^\d+$/.test(user)
        ? await api.get<{ id: number }>(p`/users/${user}`).catch((error: unknown) => {
            if (error instanceof ApiError && error.status === 404) return undefined;
            throw error;
          })
        : (await api.get<Array<{ id: number; username: string }>>('/users', { username: user })).find((u) => u.username.toLowerCase() === user.toLowerCase());
      if (!found) unknown.push(user);
      return found?.id ?? 0;
    }),
  );
  if (unknown.length) throw new UsageError(`unknown ${pluralNoun(unknown.length, 'user')}: ${unknown.join(', ')}`, 'nothing was changed; check the names with: forgectl users list');
  return [...new Set(ids)];
}

/** Group full paths (or IDs) as IDs. */
export async function groupIds(api: Api, groups: string[]): Promise<number[]> {
  return Promise.all(groups.map(async (g) => (/^\d+$/.test(g) ? Number(g) : (await api.get<{ id: number }>(p`/groups/${g}`)).id)));
}
