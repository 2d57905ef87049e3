import { projects } from '../projects/resource.js';
import { groups } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { plural } from '../../parse.js';
import { deleteAgreed } from '../projects/settings.js';
import { deletedArg, namedForDeletion } from '../../cli/options.js';

interface GroupRecord {
  id: number;
  full_path: string;
  parent_id: number | null;
  marked_for_deletion_on?: string | null;
}

export default defineCommand<{ group?: string; permanently?: boolean }>({
  effect: 'destructive',
  description: 'Deletes a group with all its subgroups and projects, after counting them and asking (--yes off a terminal). Where the instance delays deletion (Premium and Ultimate) the group is marked and deleted after the instance\'s delay, and can be restored until then; --permanently deletes it now (a marked group only: it is marked first). Needs the Owner role.',
  examples: ['forgectl groups delete acme/platform --yes', 'forgectl groups delete acme/platform --permanently --yes'],
  args: [deletedArg('group')],
  options: [{ flags: '--permanently', description: 'delete now, not after the instance\'s deletion delay' }],
  async run(opts, ctx) {
    const given = namedForDeletion(opts.group, 'group');
    const group = await ctx.api.call<GroupRecord>(groups.routes.get, { group: given, with_projects: false });
    const path = group.full_path;
    let subgroups = 0;
    for await (const _ of ctx.api.list(groups.routes.descendants, { group: group.id, all_available: true }, { all: true })) subgroups++;
    let projectCount = 0;
    for await (const _ of ctx.api.list(projects.routes.ofGroup, { group: group.id, include_subgroups: true, with_shared: false, simple: true }, { all: true })) projectCount++;
    await ctx.confirm(`Delete group ${path}${opts.permanently ? ' permanently' : ''}, with ${plural(subgroups, 'subgroup')} and ${plural(projectCount, 'project')} (their repositories, issues, merge requests and members)?`);
    await deleteAgreed(ctx, groups, group, path, opts.permanently, { with_projects: false });
    return undefined;
  },
});
