import type { Api } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { orderedPool } from '../../fleet/pool.js';
import { plural } from '../../parse.js';
import { groups } from '../groups/resource.js';
import { projects } from '../projects/resource.js';
import { members } from './resource.js';

/**
 * What removing a user from a group takes along: the service also removes their direct memberships of the group's
 * subgroups (at any depth) and of the projects in it and in them, unless skip_subresources is given. Read before the
 * removal, so that the question names them.
 */

/** The subgroups and projects below a group a user is a direct member of, by full path. */
export interface Below {
  groups: string[];
  projects: string[];
}

interface Place {
  kind: 'group' | 'project';
  id: number;
  path: string;
}

/** Reads of the places below a group at once. */
const CONCURRENCY = 8;

async function all<T>(api: Api, route: string, params: Record<string, unknown>): Promise<T[]> {
  const found: T[] = [];
  for await (const record of api.list<T>(route, params, { all: true })) found.push(record);
  return found;
}

/** The subgroups of a group at any depth, and every project in it and in them (not those shared with it). */
async function placesBelow(api: Api, group: string | number): Promise<Place[]> {
  const subgroups = await all<{ id: number; full_path: string }>(api, groups.routes.descendants, { group });
  const inside = await all<{ id: number; path_with_namespace: string }>(api, projects.routes.ofGroup, { group, include_subgroups: true, with_shared: false, simple: true });
  return [
    ...subgroups.map((g): Place => ({ kind: 'group', id: g.id, path: g.full_path })),
    ...inside.map((p): Place => ({ kind: 'project', id: p.id, path: p.path_with_namespace })),
  ];
}

/** For each user (by id), the direct memberships below the group that its removal takes along. */
export async function membershipsBelow(ctx: Context, group: string | number, users: Array<{ id: number }>): Promise<Map<number, Below>> {
  const below = new Map<number, Below>(users.map((user) => [user.id, { groups: [], projects: [] }]));
  const userIds = users.map((user) => user.id);
  const places = await placesBelow(ctx.api, group);
  const membersOf = (place: Place) => all<{ id: number }>(ctx.api, members.parents[place.kind].routes.list, { [place.kind]: place.id, user_ids: userIds });
  for await (const outcome of orderedPool(places, CONCURRENCY, membersOf)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status !== 'ok') continue;
    const { kind, path } = outcome.item;
    for (const member of outcome.value) below.get(member.id)?.[kind === 'group' ? 'groups' : 'projects'].push(path);
  }
  return below;
}

/** "2 subgroups and 3 projects"; "" when there are none. */
export function belowWords(below: Below | undefined): string {
  if (!below) return '';
  return [below.groups.length ? plural(below.groups.length, 'subgroup') : '', below.projects.length ? plural(below.projects.length, 'project') : ''].filter(Boolean).join(' and ');
}
