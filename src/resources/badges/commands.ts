import { badges } from './resource.js';
import { CliError, ExitCode } from '../../errors.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(badges, {
  list: {
    description: 'Lists the badges of the project and those it inherits from its groups (kind "group"; change those on the group).',
    examples: ['forgectl badges list --project acme/api', 'forgectl badges list --project acme/api --name coverage -o json'],
  },
  get: { examples: ['forgectl badges get 2 --project acme/api'] },
  create: {
    examples: [
      "forgectl badges create --project acme/api --name ci --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{project_path}/%{default_branch}.svg'",
    ],
  },
  update: { examples: ["forgectl badges update 2 --project acme/api --image-url 'https://ci.example.com/%{project_path}/status.svg'"] },
  delete: {
    description: 'Only project badges can be deleted here; a badge of kind "group" belongs to the group.',
    examples: ['forgectl badges delete 2 --project acme/api --yes'],
    // The service refuses group badges with 403 only after the prompt; looking first gives the clearer answer.
    inspect(badge: { id: number; kind: string; name: string | null }, where) {
      if (badge.kind === 'group') throw new CliError(`badge ${badge.id} is a group badge and cannot be deleted through ${where}`, ExitCode.auth, 'delete it on its group instead');
      return badge.name ?? undefined;
    },
  },
});
