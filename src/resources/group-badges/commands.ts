import { groupBadges } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(groupBadges, {
  list: {
    description: 'The badges of a group; its projects show them too (kind "group" in `badges list`).',
    examples: ['forgectl group-badges list --group acme', 'forgectl group-badges list --group acme --name pipeline -o json'],
  },
  get: { examples: ['forgectl group-badges get 1 --group acme'] },
  create: {
    examples: ["forgectl group-badges create --group acme --name pipeline --link-url 'https://ci.example.com/%{project_path}' --image-url 'https://ci.example.com/%{project_path}/badge.svg'"],
  },
  update: { examples: ["forgectl group-badges update 1 --group acme --image-url 'https://ci.example.com/%{project_path}/status.svg'"] },
  delete: { examples: ['forgectl group-badges delete 1 --group acme --yes'] },
});
