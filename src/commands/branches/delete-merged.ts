import { branches } from '../../api/resources/branches.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';

export default defineCommand<{ project?: string }>({
  description:
    'Deletes every branch whose head is in the default branch, except the default branch itself. The instance deletes them in the background. Needs the Developer role.',
  examples: ['forgectl branches delete-merged --project acme/api --yes'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const merged: string[] = [];
    for await (const branch of ctx.api.list<{ name: string; merged: boolean }>(branches.routes.list, { project }, { all: true })) {
      if (branch.merged) merged.push(branch.name);
    }
    if (!merged.length) {
      ctx.io.note(`No merged branches in project ${project}`);
      return undefined;
    }
    await ctx.confirm(`Delete ${merged.length === 1 ? 'the merged branch' : `${merged.length} merged branches`} of project ${project} (${merged.join(', ')})?`);
    await ctx.api.call(branches.routes.deleteMerged, { project });
    ctx.io.note(`Deleting the merged branches of project ${project}`);
    return undefined;
  },
});
