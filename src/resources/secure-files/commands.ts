import { secureFiles } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(secureFiles, {
  list: {
    description: 'Secure files of a project (CI/CD files such as keystores and provisioning profiles).',
    examples: ['forgectl secure-files list --project acme/api'],
  },
  get: { examples: ['forgectl secure-files get 1 --project acme/api'] },
  delete: { examples: ['forgectl secure-files delete 1 --project acme/api --yes'] },
});
