import { approvalRules } from '../../api/resources/approval-rules.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(approvalRules, {
  list: {
    examples: ['forgectl approval-rules list --project acme/api', 'forgectl approval-rules list --project acme/api -o json --fields name,eligible_approvers'],
  },
  get: { examples: ['forgectl approval-rules get 1 --project acme/api'] },
  delete: { examples: ['forgectl approval-rules delete 1 --project acme/api --yes'], inspect: (rule: { name: string }) => rule.name },
});
