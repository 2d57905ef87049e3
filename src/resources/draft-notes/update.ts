import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { draftNotes } from './resource.js';
import { parseId } from '../../cli/resource-commands.js';
import { mrOption, readTextOption } from '../merge-requests/review-options.js';
import { noteTextOptions, positionOf, positionOptions, type PositionOptions } from './shared.js';

export default defineCommand<PositionOptions & { project?: string; mr: number; id: string; note?: string; noteFile?: string }>({
  effect: 'write',
  examples: ["forgectl draft-notes update 1 --project acme/api --mr 1 --note 'looks good to me'"],
  args: [{ spec: '<id>', description: 'the draft note\'s ID' }],
  options: [projectOption, mrOption, ...noteTextOptions, ...positionOptions],
  async run(opts, ctx) {
    const id = parseId(draftNotes, opts.id);
    const position = positionOf(opts);
    const note = await readTextOption(ctx, 'note', opts.note, opts.noteFile);
    if (note === undefined && position === undefined) throw new UsageError('nothing to change', 'give --note, --note-file or the position flags');
    return ctx.api.call(draftNotes.routes.update, { project: ctx.project(opts.project), merge_request_iid: opts.mr, draft_note_id: id, note, position });
  },
});
