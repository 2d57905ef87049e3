import { notes } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(notes, {
  list: {
    description: 'System notes (changes recorded by the service) are listed with the comments; --activity-filter only_comments leaves them out.',
    examples: ['forgectl notes list --project acme/api --issue 1', 'forgectl notes list --project acme/api --snippet 1 --sort asc --order-by updated_at'],
  },
  get: { examples: ['forgectl notes get 2 --project acme/api --issue 1'] },
  delete: { examples: ['forgectl notes delete 2 --project acme/api --issue 1 --yes'] },
});
