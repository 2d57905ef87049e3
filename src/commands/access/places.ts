import type { Context } from '../../cli/command.js';
import { orderedPool } from '../../fleet/pool.js';
import type { Progress } from '../../fleet/progress.js';
import { groups } from '../../resources/groups/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { grant, type AccessRow, type Place } from './grants.js';
import { projectPlace, type AccessReader, type ProjectRecord } from './read.js';
import { Ways } from './ways.js';

/** What a matrix covers: one project, or a group with its projects (and with `recursive` its subgroups and theirs). */
export interface Target {
  group?: string;
  project?: string;
  recursive?: boolean;
}

/** The groups and projects of the target, the group first, then its subgroups, then the projects. */
export async function placesOf(ctx: Context, reader: AccessReader, target: Target): Promise<Place[]> {
  if (target.project !== undefined) return [projectPlace(await ctx.api.call<ProjectRecord>(projects.routes.get, { project: target.project }))];
  const root = await reader.group(target.group!);
  const below = target.recursive ? await reader.all<{ id: number; full_path: string; parent_id: number | null }>(groups.routes.descendants, { group: String(root.id) }) : [];
  const inside = await reader.all<ProjectRecord>(projects.routes.ofGroup, { group: String(root.id), include_subgroups: target.recursive || undefined, with_shared: false, order_by: 'id', sort: 'asc' });
  return [root, ...below.map((g): Place => ({ kind: 'group', id: g.id, path: g.full_path, parentId: g.parent_id, links: [] })), ...inside.map(projectPlace)];
}

/** Every way into each place: the direct members of each, read `concurrency` at a time, and of the groups above and shared with them, once each. */
export async function placeRows(reader: AccessReader, places: Place[], concurrency: number, progress: Progress<Place>): Promise<AccessRow[]> {
  const ways = new Ways(reader);
  await progress.begin(places);
  const rows: AccessRow[] = [];
  const work = async (place: Place): Promise<AccessRow[]> => {
    progress.start(place);
    const entries = await ways.into(place);
    progress.finish(place);
    return entries.map(([member, way]) => grant(place, member, way));
  };
  for await (const outcome of orderedPool(places, concurrency, work)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') rows.push(...outcome.value);
  }
  return rows;
}
