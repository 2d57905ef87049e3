import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotePath } from '../../api/review.js';
import { mrOption } from '../review-options.js';
import { parseDraftId } from './shared.js';

export default defineCommand<{ project?: string; mr: number; id: string }>({
  examples: ['forgectl draft-notes delete 4 --project acme/api --mr 1 --yes'],
  args: ['<id>'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    const id = parseDraftId(opts.id);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete draft note ${id} of merge request !${opts.mr} in ${project}?`);
    await ctx.api.delete(draftNotePath(project, opts.mr, id));
    ctx.io.note(`Deleted draft note ${id}`);
    return undefined;
  },
});
