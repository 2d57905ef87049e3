import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { notesPath } from '../../api/review.js';
import { noteableOf, noteableOptions, parseNoteId, type NoteableOptions } from './shared.js';

export default defineCommand<NoteableOptions & { id: string }>({
  examples: ['forgectl notes get 2 --project acme/api --issue 1'],
  args: ['<id>'],
  options: [projectOption, ...noteableOptions],
  async run(opts, ctx) {
    return ctx.api.get(`${notesPath(ctx.project(opts.project), noteableOf(opts))}/${parseNoteId(opts.id)}`);
  },
});
