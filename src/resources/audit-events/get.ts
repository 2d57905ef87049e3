import { auditEvents } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { row } from './row.js';

export default plainCommands(auditEvents, {
  get: {
    description: 'One audit event by id, with who, what and on what as the list shows them.',
    examples: ['forgectl audit-events get 3 --project acme/api', 'forgectl audit-events get 2 --group acme -o json', 'forgectl audit-events get 1 --instance --fields author,action,target'],
    map: row,
  },
}).get!;
