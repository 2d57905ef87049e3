import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotes } from './resource.js';
import { mrOption } from '../merge-requests/review-options.js';
import { plural } from '../../parse.js';

export default defineCommand<{ project?: string; mr: number }>({
  effect: 'write',
  description: 'Publishes all of your drafts on the merge request at once (a review); other people\'s drafts are not touched.',
  examples: ['forgectl draft-notes publish-all --project acme/api --mr 1 --yes'],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const where = { project, merge_request_iid: opts.mr };
    const drafts = await ctx.api.call<unknown[]>(draftNotes.routes.list, where);
    if (!drafts.length) {
      ctx.io.note(`You have no draft notes on merge request !${opts.mr} of ${project}`);
      return undefined;
    }
    const count = plural(drafts.length, 'draft note');
    await ctx.confirm(`Publish ${count} on merge request !${opts.mr} of ${project}?`);
    await ctx.api.call(draftNotes.routes.publishAll, where);
    ctx.io.note(`Published ${count} on merge request !${opts.mr}`);
    return undefined;
  },
});
