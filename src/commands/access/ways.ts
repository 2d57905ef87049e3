import { ApiError } from '../../errors.js';
import type { Link, Membership, Place, Way } from './grants.js';
import type { AccessReader } from './read.js';

/**
 * Every way into a group or project, from the direct members of the groups and projects involved, by the rules the
 * service documents for sharing: a group shared with a group reaches that group's direct members only; a project
 * shared with a group reaches its direct and inherited members and the direct members of the groups shared with it.
 * What the ways read must have been read (or is read here) through the reader, once each.
 */
export type Entry = [Membership, Way];

export class Ways {
  private readonly groupWays = new Map<number, Promise<Entry[]>>();

  constructor(private readonly reader: AccessReader) {}

  into(place: Place): Promise<Entry[]> {
    return place.kind === 'group' ? this.intoGroup(place.id) : this.intoProject(place);
  }

  /** Members of the group and the groups above it, and the direct members of the groups any of them is shared with. */
  private intoGroup(id: number): Promise<Entry[]> {
    let known = this.groupWays.get(id);
    if (!known) {
      known = (async () => {
        const chain = await this.reader.chain(id);
        const entries: Entry[] = [];
        for (const group of chain) {
          const via = group.id === id ? 'direct' : 'inherited';
          for (const member of await this.listed(group)) entries.push([member, { via, source: group.path }]);
        }
        for (const group of chain) {
          for (const link of group.links) {
            for (const member of await this.shared(link, () => this.reader.direct('group', link.group_id))) entries.push([member, { via: 'shared', source: link.group_full_path, links: [{ on: group.path, link }] }]);
          }
        }
        return entries;
      })();
      this.groupWays.set(id, known);
    }
    return known;
  }

  private async intoProject(project: Place): Promise<Entry[]> {
    const entries: Entry[] = (await this.reader.direct('project', project.id)).map((member) => [member, { via: 'direct', source: project.path }]);
    if (project.parentId !== null) {
      for (const [member, way] of await this.intoGroup(project.parentId)) entries.push([member, way.via === 'direct' ? { ...way, via: 'inherited' } : way]);
    }
    for (const link of project.links) entries.push(...(await this.shared(link, () => this.throughLink(project, link))));
    return entries;
  }

  /** The members of the groups a project is shared with through one link: the group, the groups above it, and the groups it is shared with in turn. */
  private async throughLink(project: Place, link: Link): Promise<Entry[]> {
    const entries: Entry[] = [];
    const outer = { on: project.path, link };
    for (const group of await this.reader.chain(link.group_id)) {
      for (const member of await this.reader.direct('group', group.id)) entries.push([member, { via: 'shared', source: group.path, links: [outer] }]);
    }
    for (const inner of (await this.reader.group(link.group_id)).links) {
      for (const member of await this.shared(inner, () => this.reader.direct('group', inner.group_id))) {
        entries.push([member, { via: 'shared', source: inner.group_full_path, links: [outer, { on: link.group_full_path, link: inner }] }]);
      }
    }
    return entries;
  }

  /**
   * The direct members of a group, or none when the service refuses to list them (403: a private group, to those who
   * are members of one of its projects only): the report names it instead of stopping.
   */
  private async listed(group: Place): Promise<Membership[]> {
    try {
      return await this.reader.direct('group', group.id);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 403) throw error;
      this.reader.unlisted.add(group.path);
      return [];
    }
  }

  /**
   * What a share leads to, or nothing when the shared group is hidden from the caller (a private group a place was
   * shared with answers 404 to those outside it): the report names it instead of stopping.
   */
  private async shared<T>(link: Link, read: () => Promise<T[]>): Promise<T[]> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 403)) throw error;
      this.reader.unreadable.add(link.group_full_path);
      return [];
    }
  }
}
