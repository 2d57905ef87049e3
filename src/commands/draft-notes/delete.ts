import { draftNotePath } from '../../api/review.js';
import { defineProjectDelete } from '../../cli/delete-command.js';
import { mrOption } from '../review-options.js';

export default defineProjectDelete<{ project?: string; mr: number; id: string }>({
  noun: 'draft note',
  examples: ['forgectl draft-notes delete 4 --project acme/api --mr 1 --yes'],
  options: [mrOption],
  path: (project, id, opts) => draftNotePath(project, opts.mr, id),
  where: (project, opts) => `merge request !${opts.mr} in ${project}`,
});
