import { protectedBranches } from '../../api/resources/protected-branches.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { withWho } from './shared.js';

export default plainCommands(protectedBranches, {
  list: {
    description: 'A project lists its groups\' rules too (inherited, Premium).',
    examples: ['forgectl protected-branches list --project acme/api', 'forgectl protected-branches list --project acme/api --search release -o json'],
    map: withWho,
  },
  get: { examples: ["forgectl protected-branches get 'release/*' --project acme/api"] },
});
