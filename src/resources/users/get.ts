import { defineCommand } from '../../cli/command.js';
import { userArg, userRecord } from './shared.js';

export default defineCommand<{ user: string }>({
  effect: 'read',
  description: 'By id, or by username (looked up with GET /users?username=). Administrators see the private fields (email, identities, sign-in data …).',
  examples: ['forgectl users get 3', 'forgectl users get alice -o json'],
  args: [userArg],
  async run(opts, ctx) {
    return userRecord(ctx, opts.user);
  },
});
