import { describeNoteable, notesPath } from '../../api/review.js';
import { defineProjectDelete } from '../../cli/delete-command.js';
import { noteableOf, noteableOptions, type NoteableOptions } from './shared.js';

export default defineProjectDelete<NoteableOptions & { id: string }>({
  noun: 'note',
  examples: ['forgectl notes delete 2 --project acme/api --issue 1 --yes'],
  options: noteableOptions,
  path: (project, id, opts) => `${notesPath(project, noteableOf(opts))}/${id}`,
  where: (project, opts) => `${describeNoteable(noteableOf(opts))} in ${project}`,
});
