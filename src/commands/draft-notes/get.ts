import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotePath } from '../../api/review.js';
import { mrOption } from '../review-options.js';
import { parseDraftId } from './shared.js';

export default defineCommand<{ project?: string; mr: number; id: string }>({
  examples: ['forgectl draft-notes get 4 --project acme/api --mr 1'],
  args: ['<id>'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    return ctx.api.get(draftNotePath(ctx.project(opts.project), opts.mr, parseDraftId(opts.id)));
  },
});
