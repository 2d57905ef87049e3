import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { pushRule } from '../../api/resources/push-rule.js';

export default defineCommand<{ project?: string }>({
  description: 'Premium and Ultimate. A project without a push rule prints nothing and says so on stderr.',
  examples: ['forgectl push-rule get --project acme/api', 'forgectl push-rule get --project acme/api -o json'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const rule = await ctx.api.call(pushRule.routes.get, { project });
    if (rule === null || rule === undefined) {
      ctx.io.note(`project ${project} has no push rule`);
      return undefined;
    }
    return rule;
  },
});
