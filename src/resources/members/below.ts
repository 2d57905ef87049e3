import type { Api } from '../../api/client.js';
import type { Context } from '../../cli/command.js';
import { DEFAULT_CONCURRENCY } from '../../cli/fleet-options.js';
import { ApiError } from '../../errors.js';
import { orderedPool } from '../../fleet/pool.js';
import { plural } from '../../parse.js';
import { groups } from '../groups/resource.js';
import { projects } from '../projects/resource.js';
import { directMemberships } from '../users/shared.js';
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

/** The direct members among the users of each place, by placeKey. */
type MembersByPlace = Map<string, number[]>;

const placeKey = (kind: Place['kind'], id: number): string => `${kind} ${id}`;

/** Notes that the user is a direct member of the place. */
const addMember = (found: MembersByPlace, kind: Place['kind'], id: number, userId: number): void => {
  const key = placeKey(kind, id);
  found.set(key, [...(found.get(key) ?? []), userId]);
};

/**
 * The subgroups of a group at any depth, and every project in it and in them (not those shared with it); only the
 * kinds asked for.
 */
async function placesBelow(api: Api, group: string | number, kinds: Set<Place['kind']>): Promise<Place[]> {
  const subgroups = kinds.has('group') ? await api.list<{ id: number; full_path: string }>(groups.routes.descendants, { group }, { all: true }).toArray() : [];
  const inside = kinds.has('project') ? await api.list<{ id: number; path_with_namespace: string }>(projects.routes.ofGroup, { group, include_subgroups: true, with_shared: false, simple: true }, { all: true }).toArray() : [];
  return [
    ...subgroups.map((g): Place => ({ kind: 'group', id: g.id, path: g.full_path })),
    ...inside.map((p): Place => ({ kind: 'project', id: p.id, path: p.path_with_namespace })),
  ];
}

/**
 * Where the users are direct members, from each user's own list of memberships: one paginated list a user, however
 * many places the group holds. Only administrators may read it: undefined for anyone else.
 */
async function fromMemberships(api: Api, users: Array<{ id: number }>): Promise<MembersByPlace | undefined> {
  const found: MembersByPlace = new Map();
  for (const user of users) {
    const memberships = await directMemberships(api, user.id).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 403) return undefined;
      throw error;
    });
    if (!memberships) return undefined;
    for (const membership of memberships) addMember(found, membership.source_type === 'Project' ? 'project' : 'group', membership.source_id, user.id);
  }
  return found;
}

/**
 * Where the users are direct members in the group's hierarchy, from each user's memberships there (the service's
 * "billable member's memberships"): one paginated list a user. The service answers it only for a top-level group,
 * only to its Owners, only for users the group bills (not bots, not blocked) and only on its Enterprise edition:
 * undefined when it does not (400 or 404), and the members of each place are read instead.
 */
async function fromHierarchyMemberships(api: Api, group: string | number, users: Array<{ id: number }>): Promise<MembersByPlace | undefined> {
  const found: MembersByPlace = new Map();
  for (const user of users) {
    const memberships = await api.list<{ source_id: number; source_members_url: string }>(members.parents.group.routes.hierarchyMemberships, { group, user_id: user.id }, { all: true }).toArray().catch((error: unknown) => {
      if (error instanceof ApiError && [400, 403, 404].includes(error.status)) return undefined;
      throw error;
    });
    if (!memberships) return undefined;
    for (const membership of memberships) {
      // Which kind of place: only the page of its members says (a group's and a project's ids may be the same).
      const kind = /\/-\/group_members$/.test(membership.source_members_url) ? 'group' : /\/-\/project_members$/.test(membership.source_members_url) ? 'project' : undefined;
      if (!kind) return undefined;
      addMember(found, kind, membership.source_id, user.id);
    }
  }
  return found;
}

/** Where the users are direct members, from the members of each place (what an Owner of the group may read). */
async function fromMemberLists(ctx: Context, places: Place[], userIds: number[]): Promise<MembersByPlace> {
  const found: MembersByPlace = new Map();
  // One list a place, several at once: paced by the service's rate-limit answers, as other commands that read many places.
  ctx.rateGate.activate(DEFAULT_CONCURRENCY);
  const membersOf = (place: Place) => ctx.api.list<{ id: number }>(members.parents[place.kind].routes.list, { [place.kind]: place.id, user_ids: userIds }, { all: true }).toArray();
  for await (const outcome of orderedPool(places, DEFAULT_CONCURRENCY, membersOf)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') found.set(placeKey(outcome.item.kind, outcome.item.id), outcome.value.map((member) => member.id));
  }
  return found;
}

/**
 * The kinds of places below the group worth listing: subgroups when the users are direct members of a group besides
 * this one (each of them is a member of it), projects when of a project.
 */
function kindsToRead(listed: MembersByPlace): Set<Place['kind']> {
  const keys = [...listed.keys()];
  const kinds = new Set<Place['kind']>();
  if (keys.filter((key) => key.startsWith('group ')).length > 1) kinds.add('group');
  if (keys.some((key) => key.startsWith('project '))) kinds.add('project');
  return kinds;
}

/** For each user (by id), the direct memberships below the group that its removal takes along. */
export async function membershipsBelow(ctx: Context, group: string | number, users: Array<{ id: number }>): Promise<Map<number, Below>> {
  const below = new Map<number, Below>(users.map((user) => [user.id, { groups: [], projects: [] }]));
  const listed = (await fromMemberships(ctx.api, users)) ?? (await fromHierarchyMemberships(ctx.api, group, users));
  const places = await placesBelow(ctx.api, group, listed ? kindsToRead(listed) : new Set(['group', 'project']));
  const membersByPlace = listed ?? (await fromMemberLists(ctx, places, users.map((user) => user.id)));
  for (const place of places) {
    for (const id of membersByPlace.get(placeKey(place.kind, place.id)) ?? []) below.get(id)?.[place.kind === 'group' ? 'groups' : 'projects'].push(place.path);
  }
  return below;
}

/** "2 subgroups and 3 projects"; "" when there are none. */
export function belowWords(below: Below | undefined): string {
  if (!below) return '';
  return [below.groups.length ? plural(below.groups.length, 'subgroup') : '', below.projects.length ? plural(below.projects.length, 'project') : ''].filter(Boolean).join(' and ');
}
