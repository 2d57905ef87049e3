import { pushRule } from './resource.js';
import { singletonCommands } from '../../cli/resource-commands.js';

export default singletonCommands(pushRule, {
  get: {
    description: 'A project without a push rule prints nothing and says so on stderr.',
    examples: ['forgectl push-rule get --project acme/api', 'forgectl push-rule get --project acme/api -o json'],
  },
  set: {
    description: 'Creates the push rule, or updates the fields given when the project has one. Regexes are checked to compile before sending.',
    examples: [
      'forgectl push-rule set --project acme/api --max-file-size 10 --deny-delete-tag',
      "forgectl push-rule set --project acme/api --branch-name-regex '^(main|feature/.+)$' --no-member-check",
    ],
    nothingHint: 'give at least one rule, for example --max-file-size 10 or --deny-delete-tag',
  },
  delete: { examples: ['forgectl push-rule delete --project acme/api --yes'] },
});
