import { draftNotes } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(draftNotes, {
  get: { examples: ['forgectl draft-notes get 1 --project acme/api --mr 1'] },
  delete: { examples: ['forgectl draft-notes delete 1 --project acme/api --mr 1 --yes'] },
});
