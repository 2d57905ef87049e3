import { draftNotes } from '../../api/resources/draft-notes.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(draftNotes, {
  get: { examples: ['forgectl draft-notes get 4 --project acme/api --mr 1'] },
  delete: { examples: ['forgectl draft-notes delete 4 --project acme/api --mr 1 --yes'] },
});
