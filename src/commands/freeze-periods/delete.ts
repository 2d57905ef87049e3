import { defineProjectDelete } from '../../cli/delete-command.js';
import { periodPath } from './shared.js';

export default defineProjectDelete({
  noun: 'freeze period',
  examples: ['forgectl freeze-periods delete 1 --project acme/api --yes'],
  path: (project, id) => periodPath(project, id),
});
