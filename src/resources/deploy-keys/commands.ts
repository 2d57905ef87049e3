import { deployKeys } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(deployKeys, {
  list: { examples: ['forgectl deploy-keys list --project acme/api'] },
  get: { examples: ['forgectl deploy-keys get 3 --project acme/api'] },
  update: { examples: ['forgectl deploy-keys update 3 --project acme/api --no-can-push'] },
  delete: {
    description: 'The key itself goes when no other project has it.',
    examples: ['forgectl deploy-keys delete 3 --project acme/api --yes'],
    inspect: (key: { title: string }) => `"${key.title}"`,
  },
});
