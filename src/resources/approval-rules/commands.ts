import { approvalRules } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

export default plainCommands(approvalRules, {
  list: {
    description: "A project's rules, or with --mr those of one merge request (copies of the project's rules until the merge request overrides them).",
    examples: [
      'forgectl approval-rules list --project acme/api',
      'forgectl approval-rules list --project acme/api -o json --fields name,eligible_approvers',
      'forgectl approval-rules list --project acme/api --mr 1',
    ],
  },
  get: { examples: ['forgectl approval-rules get 1 --project acme/api', 'forgectl approval-rules get 1 --project acme/api --mr 1 -o json'] },
  delete: {
    examples: ['forgectl approval-rules delete 1 --project acme/api --mr 1 --yes', 'forgectl approval-rules delete 1 --project acme/api --yes'],
    inspect: (rule: { name: string }) => rule.name,
  },
});
