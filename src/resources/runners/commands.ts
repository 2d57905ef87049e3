import { plainCommands } from '../../cli/resource-commands.js';
import { byId } from './shared.js';

/** get and update by id: whatever the runner belongs to (administrators; the Maintainer of its group or project). */
export default plainCommands(byId, {
  get: {
    description: 'With the time of its last contact, its tags, settings and the groups or projects it belongs to. Administrators see every runner; others the runners of their groups and projects.',
    examples: ['forgectl runners get 7', 'forgectl runners get 7 --fields id,description,status,contacted_at,tag_list'],
  },
  update: {
    description: '--tag-list replaces the tags. Administrators may change every runner; others the runners of their groups and projects.',
    examples: ["forgectl runners update 7 --tag-list gpu,cuda --maximum-timeout 3600 --maintenance-note 'driver 550 since May'", 'forgectl runners update 4 --no-run-untagged --access-level ref_protected'],
  },
});
