import { deployKeys } from '../../api/resources/deploy-keys.js';
import { plainCommands } from '../../cli/resource-commands.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFgrWUVS92aTH7L9CyzOEGGVlhcKMxiHM94X5TZUM2WI release@ci';

export default plainCommands(deployKeys, {
  list: { examples: ['forgectl deploy-keys list --project acme/api'] },
  get: { examples: ['forgectl deploy-keys get 3 --project acme/api'] },
  create: {
    description: 'The same public key already enabled elsewhere is enabled here too (one key, many projects).',
    examples: [`forgectl deploy-keys create --project acme/web --title "release bot" --key "${KEY}" --can-push`],
  },
  update: { examples: ['forgectl deploy-keys update 3 --project acme/api --no-can-push'] },
  delete: {
    description: 'The key itself goes when no other project has it.',
    examples: ['forgectl deploy-keys delete 3 --project acme/api --yes'],
    inspect: (key: { title: string }) => `"${key.title}"`,
  },
});
