import { protectedBranches } from './resource.js';
import { overProjectsFile } from '../../cli/fleet-options.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { ruleForOutput, withWho } from './shared.js';

export default overProjectsFile(plainCommands(protectedBranches, {
  list: {
    description: 'A project lists its groups\' rules too (inherited: true, Premium). Who may push, merge and unprotect is said as the options take it: maintainer, user:alice, group:acme/devs.',
    examples: ['forgectl protected-branches list --project acme/api', 'forgectl protected-branches list --project acme/api --search release -o json', 'forgectl protected-branches list --projects-file services.txt'],
    mapPage: withWho,
    columns: ['name', 'inherited', 'push', 'merge', 'unprotect', 'allow_force_push'],
  },
  get: {
    examples: ["forgectl protected-branches get 'release/*' --project acme/api", 'forgectl protected-branches get main --project acme/api --fields name,push,merge', 'forgectl protected-branches get main --projects-file services.txt --fields project,name,allow_force_push'],
    map: ruleForOutput,
  },
}));
