import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { approvalRulePath } from '../../api/review.js';

export default defineCommand<{ project?: string; id: string }>({
  examples: ['forgectl approval-rules get 3 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.get(approvalRulePath(ctx.project(opts.project), parseInteger('rule id', 1)(opts.id)));
  },
});
