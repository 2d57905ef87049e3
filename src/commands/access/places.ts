import type { Context } from '../../cli/command.js';
import { orderedPool } from '../../fleet/pool.js';
import type { Progress } from '../../fleet/progress.js';
import { groups } from '../../resources/groups/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { complete, grant, type AccessRow, type Place } from './grants.js';
import { projectPlace, type AccessReader, type ProjectRecord } from './read.js';
import { Ways } from './ways.js';

/** What a matrix covers: one project, or a group with its projects (and with `recursive` its subgroups and theirs). */
export interface Target {
  group?: string;
  project?: string;
  recursive?: boolean;
}

/** The groups and projects of the target, by path. */
export async function placesOf(ctx: Context, reader: AccessReader, target: Target): Promise<Place[]> {
  if (target.project !== undefined) return [projectPlace(await ctx.api.call<ProjectRecord>(projects.routes.get, { project: target.project }))];
  const root = await reader.group(target.group!);
  const below = target.recursive ? await reader.all<{ id: number; full_path: string; parent_id: number | null }>(groups.routes.descendants, { group: String(root.id) }) : [];
  const inside = await reader.all<ProjectRecord>(projects.routes.ofGroup, { group: String(root.id), include_subgroups: target.recursive || undefined, with_shared: false, order_by: 'id', sort: 'asc' });
  const places = [root, ...below.map((g): Place => ({ kind: 'group', id: g.id, path: g.full_path, parentId: g.parent_id, links: [] })), ...inside.map(projectPlace)];
  return places.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.kind < b.kind ? -1 : 1));
}

/**
 * Every way into each place, place after place in the order given, each place's rows complete (the effective one
 * marked, external users known) as soon as it is read: the rows stream out while later places are still read, and
 * memory holds the groups' members, not the rows. `concurrency` places are read at once.
 */
export async function* placeRows(reader: AccessReader, places: Place[], concurrency: number, progress: Progress<Place>, today: string): AsyncGenerator<AccessRow> {
  const ways = new Ways(reader);
  await progress.begin(places);
  const work = async (place: Place): Promise<AccessRow[]> => {
    progress.start(place);
    const rows = (await ways.into(place)).map(([member, way]) => grant(place, member, way));
    const external = await reader.externalOf(rows.map((row) => row.user_id));
    progress.finish(place);
    return complete(rows, external, today);
  };
  try {
    for await (const outcome of orderedPool(places, concurrency, work)) {
      if (outcome.status === 'failed') throw outcome.error;
      if (outcome.status === 'ok') yield* outcome.value;
    }
  } finally {
    progress.stop();
  }
}
