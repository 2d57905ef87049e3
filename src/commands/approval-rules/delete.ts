import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { approvalRulePath } from '../../api/review.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl approval-rules delete 3 --project acme/api --yes'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('rule id', 1)(opts.id);
    const project = ctx.project(opts.project);
    const rule = await ctx.api.get<{ name: string }>(approvalRulePath(project, id));
    await ctx.confirm(`Delete approval rule ${id} (${rule.name}) of project ${project}?`);
    await ctx.api.delete(approvalRulePath(project, id));
    ctx.io.note(`Deleted approval rule ${id} (${rule.name}) of project ${project}`);
    return undefined;
  },
});
