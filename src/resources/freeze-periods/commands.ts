import { freezePeriods } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(freezePeriods, {
  list: { description: 'Deploy freeze periods, oldest first.', examples: ['forgectl freeze-periods list --project acme/api'] },
  get: { examples: ['forgectl freeze-periods get 1 --project acme/api'] },
  create: {
    description: 'Both cron expressions and the time zone are checked locally before anything is sent.',
    examples: ["forgectl freeze-periods create --project acme/api --freeze-start '0 23 * * 5' --freeze-end '0 7 * * 1' --cron-timezone Europe/Berlin"],
  },
  update: { examples: ["forgectl freeze-periods update 1 --project acme/api --freeze-end '0 9 * * 1'"] },
  delete: { examples: ['forgectl freeze-periods delete 1 --project acme/api --yes'] },
});
