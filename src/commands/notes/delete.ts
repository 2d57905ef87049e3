import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { describeNoteable, notesPath } from '../../api/review.js';
import { noteableOf, noteableOptions, parseNoteId, type NoteableOptions } from './shared.js';

export default defineCommand<NoteableOptions & { id: string }>({
  examples: ['forgectl notes delete 12 --project acme/api --issue 1 --yes'],
  args: ['<id>'],
  options: [projectOption, ...noteableOptions],
  async run(opts, ctx) {
    const id = parseNoteId(opts.id);
    const noteable = noteableOf(opts);
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete note ${id} of ${describeNoteable(noteable)} in ${project}?`);
    await ctx.api.delete(`${notesPath(project, noteable)}/${id}`);
    ctx.io.note(`Deleted note ${id} of ${describeNoteable(noteable)} in ${project}`);
    return undefined;
  },
});
