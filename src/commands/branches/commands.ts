import { branches } from '../../api/resources/branches.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(branches, {
  list: {
    description: 'Branches in name order; --search main finds names containing it, ^text names starting with it.',
    examples: ['forgectl branches list --project acme/api', 'forgectl branches list --project acme/api --search ^feat'],
  },
  get: { examples: ['forgectl branches get feature --project acme/api', 'forgectl branches get main --project acme/api --fields name,commit'] },
  create: { examples: ['forgectl branches create --project acme/api --branch release/1.2 --ref main'] },
  delete: {
    description: 'The default branch cannot be deleted.',
    examples: ['forgectl branches delete stable --project acme/api --yes'],
    inspect: (branch: { name: string; merged: boolean }) => `branch "${branch.name}"${branch.merged ? '' : ' (not merged)'}`,
  },
});
