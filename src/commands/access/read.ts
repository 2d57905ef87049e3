import type { Context } from '../../cli/command.js';
import { groups } from '../../resources/groups/resource.js';
import { members } from '../../resources/members/resource.js';
import { users } from '../../resources/users/resource.js';
import type { Link, Membership, Place, PlaceKind } from './grants.js';

/** A project record as the project lists answer it (not `simple`: those leave out the shares). */
export interface ProjectRecord {
  id: number;
  path_with_namespace: string;
  namespace?: { id: number; kind?: string } | null;
  shared_with_groups?: Link[];
}

/** A project as a place: in its group (a personal project is in none), shared with the groups it names. */
export const projectPlace = (project: ProjectRecord): Place => ({
  kind: 'project',
  id: project.id,
  path: project.path_with_namespace,
  parentId: project.namespace?.kind === 'group' ? project.namespace.id : null,
  links: project.shared_with_groups ?? [],
});

/**
 * What a report reads, each once however many ways lead to it (a group above many projects, a group many are
 * shared with): groups with their shares, the chain of groups above one, the direct members of groups, users, whole
 * lists — at most `concurrency` of them at once, whoever asks (the places read side by side, the users of a place).
 */
export class AccessReader {
  /** The groups shared with a place that the caller cannot read: the ways in through them are not in the report. */
  readonly unreadable = new Set<string>();
  /** The groups above a place whose members the caller may not list (a private group, to a member of a project in it only). */
  readonly unlisted = new Set<string>();
  private readonly groups = new Map<string, Promise<Place>>();
  private readonly members = new Map<string, Promise<Membership[]>>();
  private readonly externals = new Map<number, Promise<boolean | null>>();
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly ctx: Context,
    private readonly concurrency: number,
  ) {}

  /** A group by id or full path, with the groups it is shared with. */
  group(idOrPath: number | string): Promise<Place> {
    return this.once(this.groups, String(idOrPath), async () => {
      const group = await this.limited(() => this.ctx.api.call<{ id: number; full_path: string; parent_id: number | null; shared_with_groups?: Link[] }>(groups.routes.get, { group: String(idOrPath), with_projects: false }));
      const place: Place = { kind: 'group', id: group.id, path: group.full_path, parentId: group.parent_id ?? null, links: group.shared_with_groups ?? [] };
      this.groups.set(String(group.id), Promise.resolve(place));
      return place;
    });
  }

  /** The group and the groups above it, nearest first. */
  async chain(groupId: number | null): Promise<Place[]> {
    const chain: Place[] = [];
    for (let id = groupId; id !== null; ) {
      const group = await this.group(id);
      chain.push(group);
      id = group.parentId;
    }
    return chain;
  }

  /** The direct members of a group or project (every page); a project's are read once anyway, and not kept. */
  direct(kind: PlaceKind, id: number): Promise<Membership[]> {
    const read = () => this.all<Membership>(members.parents[kind].routes.list, { [kind]: String(id) });
    return kind === 'project' ? read() : this.once(this.members, `${kind} ${id}`, read);
  }

  /**
   * Whether a user is external (who may see only what they are a member of); null when the service does not say,
   * as it says it to administrators only.
   */
  external(userId: number): Promise<boolean | null> {
    return this.once(this.externals, userId, async () => {
      const { external } = await this.limited(() => this.ctx.api.call<{ external?: boolean }>(users.routes.get, { user: userId }));
      return typeof external === 'boolean' ? external : null;
    });
  }

  /** Whether each of these users is external (null: not said). */
  async externalOf(userIds: number[]): Promise<Map<number, boolean | null>> {
    const ids = [...new Set(userIds)];
    const flags = await Promise.all(ids.map((id) => this.external(id)));
    return new Map(ids.map((id, i) => [id, flags[i]]));
  }

  /** Every record of a list. */
  all<T>(route: string, params: Record<string, unknown>): Promise<T[]> {
    return this.limited(() => this.ctx.api.list<T>(route, params, { all: true, perPage: 100 }).toArray());
  }

  /** Runs a read when fewer than `concurrency` are under way, else when one ends. */
  private async limited<T>(read: () => Promise<T>): Promise<T> {
    while (this.active >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await read();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  private once<K, V>(cache: Map<K, Promise<V>>, key: K, read: () => Promise<V>): Promise<V> {
    let known = cache.get(key);
    if (!known) {
      known = read();
      cache.set(key, known);
    }
    return known;
  }
}
