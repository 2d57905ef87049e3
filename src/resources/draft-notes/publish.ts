import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { draftNotes } from './resource.js';
import { mrOption } from '../merge-requests/review-options.js';
import { parseId } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; mr: number; id: string }>({
  effect: 'write',
  description: 'The draft becomes a note that everyone who sees the merge request can read; it cannot be unpublished.',
  examples: ['forgectl draft-notes publish 1 --project acme/api --mr 1 --yes'],
  args: [{ spec: '<id>', description: 'the draft note\'s ID' }],
  options: [projectOption, mrOption],
  async run(opts, ctx) {
    const id = parseId(draftNotes, opts.id);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Publish draft note ${id} on merge request !${opts.mr} of ${project}?`);
    await ctx.api.call(draftNotes.routes.publish, { project, merge_request_iid: opts.mr, draft_note_id: id });
    ctx.io.note(`Published draft note ${id} on merge request !${opts.mr}`);
    return undefined;
  },
});
