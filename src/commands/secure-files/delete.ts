import { defineProjectDelete } from '../../cli/delete-command.js';
import { filePath } from './shared.js';

export default defineProjectDelete({
  noun: 'secure file',
  examples: ['forgectl secure-files delete 1 --project acme/api --yes'],
  path: (project, id) => filePath(project, id),
});
