import { deployTokens } from '../../api/resources/deploy-tokens.js';
import { overProjectsFile } from '../../cli/fleet-options.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default overProjectsFile(plainCommands(deployTokens, {
  list: {
    description: 'Revoked and expired tokens are listed too (--active leaves them out); the instance list (--instance, administrators) also keeps tokens revoked through the API. Values are never shown.',
    examples: ['forgectl deploy-tokens list --project acme/api', 'forgectl deploy-tokens list --group acme --active', 'forgectl deploy-tokens list --instance -o json', 'forgectl deploy-tokens list --projects-file services.txt --active'],
  },
}));
