import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { orderedPool } from '../../fleet/pool.js';
import type { Progress } from '../../fleet/progress.js';
import { groups } from '../../resources/groups/resource.js';
import { members } from '../../resources/members/resource.js';
import { projects } from '../../resources/projects/resource.js';
import { users } from '../../resources/users/resource.js';
import { grant, type AccessRow, type Membership, type Place, type Way } from './grants.js';
import { projectPlace, type AccessReader, type ProjectRecord } from './read.js';

/**
 * Every place one user reaches, from the user's direct memberships (administrators read them): each group they are a
 * member of, its subgroups and their projects (inherited); the groups it was invited to, with their subgroups and
 * projects, and the projects shared with it or its subgroups (shared, each capped by its link). As the service
 * resolves it; what this does not follow is said in the guide (a project shared with a group the user reaches only
 * through another share, custom roles, LDAP and SAML group links).
 */

interface DirectMembership {
  source_id: number;
  source_type: 'Project' | 'Namespace';
}

interface GroupRecord {
  id: number;
  full_path: string;
  parent_id: number | null;
}

const groupPlace = (group: GroupRecord): Place => ({ kind: 'group', id: group.id, path: group.full_path, parentId: group.parent_id, links: [] });

export async function userRows(ctx: Context, reader: AccessReader, user: { id: number; username: string }, concurrency: number, progress: Progress<string>): Promise<AccessRow[]> {
  const memberships = await reader.all<DirectMembership>(users.routes.memberships, { user: user.id }).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 403) throw new CliError(`${error.message}: the memberships of a user are for administrators`, ExitCode.auth, 'run it with an administrator\'s token, or report on a group or project: forgectl access report --group GROUP');
    throw error;
  });
  const label = (m: DirectMembership): string => `${m.source_type === 'Project' ? 'project' : 'group'} ${m.source_id}`;
  await progress.begin(memberships.map(label), { verb: 'reading', noun: 'membership' });
  const rows: AccessRow[] = [];
  const work = async (membership: DirectMembership): Promise<AccessRow[]> => {
    progress.start(label(membership));
    const found = membership.source_type === 'Project' ? await projectMembership(ctx, membership.source_id, user.id) : await new UserInGroup(ctx, reader, user.id).reach(membership.source_id);
    progress.finish(label(membership));
    return found;
  };
  for await (const outcome of orderedPool(memberships, concurrency, work)) {
    if (outcome.status === 'failed') throw outcome.error;
    if (outcome.status === 'ok') rows.push(...outcome.value);
  }
  return rows;
}

async function projectMembership(ctx: Context, projectId: number, userId: number): Promise<AccessRow[]> {
  const project = projectPlace(await ctx.api.call<ProjectRecord>(projects.routes.get, { project: String(projectId) }));
  const member = await ctx.api.call<Membership>(members.parents.project.routes.get, { project: String(projectId), user_id: userId });
  return [grant(project, member, { via: 'direct', source: project.path })];
}

/** What one direct group membership reaches. */
class UserInGroup {
  private readonly found: AccessRow[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly reader: AccessReader,
    private readonly userId: number,
  ) {}

  async reach(groupId: number): Promise<AccessRow[]> {
    const group = await this.reader.group(groupId);
    const member = await this.ctx.api.call<Membership>(members.parents.group.routes.get, { group: String(group.id), user_id: this.userId });
    this.found.push(grant(group, member, { via: 'direct', source: group.path }));
    const below = await this.tree(group, member, { via: 'inherited', source: group.path });
    // Projects shared with the group or a group below it: its members reach them, up to the link's role.
    for (const invited of [group, ...below]) await this.sharedProjects(invited, member, invited.path, []);
    // Groups it was invited to: its direct members reach them, their subgroups and projects, up to the link's role.
    for (const record of await this.reader.all<GroupRecord>(groups.routes.sharedWith, { group: String(group.id) })) {
      const host = await this.reader.group(record.id);
      const link = host.links.find((l) => l.group_id === group.id);
      if (!link) continue;
      const way: Way = { via: 'shared', source: group.path, links: [{ on: host.path, link }] };
      this.found.push(grant(host, member, way));
      await this.tree(host, member, way);
      await this.sharedProjects(host, member, group.path, way.links!);
    }
    return this.found;
  }

  /** The subgroups and projects below a group, each reached the same way; the subgroups. */
  private async tree(group: Place, member: Membership, way: Way): Promise<Place[]> {
    const below = (await this.reader.all<GroupRecord>(groups.routes.descendants, { group: String(group.id) })).map(groupPlace);
    const inside = await this.reader.all<ProjectRecord>(projects.routes.ofGroup, { group: String(group.id), include_subgroups: true, with_shared: false, order_by: 'id', sort: 'asc' });
    for (const place of [...below, ...inside.map(projectPlace)]) this.found.push(grant(place, member, way));
    return below;
  }

  /** The projects shared with a group, reached through its link (and the links before it). */
  private async sharedProjects(invited: Place, member: Membership, source: string, before: NonNullable<Way['links']>): Promise<void> {
    for (const record of await this.reader.all<ProjectRecord>(projects.routes.sharedWithGroup, { group: String(invited.id) })) {
      const link = record.shared_with_groups?.find((l) => l.group_id === invited.id);
      if (link) this.found.push(grant(projectPlace(record), member, { via: 'shared', source, links: [{ on: record.path_with_namespace, link }, ...before] }));
    }
  }
}
