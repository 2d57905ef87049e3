import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { pushRule } from '../../api/resources/push-rule.js';

export default defineCommand<{ project?: string }>({
  examples: ['forgectl push-rule delete --project acme/api --yes'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete the push rule of project ${project}?`);
    await ctx.api.call(pushRule.routes.delete, { project });
    ctx.io.note(`Deleted the push rule of project ${project}`);
    return undefined;
  },
});
