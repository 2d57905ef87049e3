import { defineCommand } from '../../cli/command.js';
import { TextResult } from '../../output/result.js';

export default defineCommand({
  description: 'Prints the token forgectl would use (flags, environment, profile, token_command or CI job), for scripts: curl -H "PRIVATE-TOKEN: $(forgectl auth token)" …',
  examples: ['forgectl auth token', 'curl -H "PRIVATE-TOKEN: $(forgectl -p prod auth token)" https://git.example.com/api/v4/user'],
  async run(_opts, ctx) {
    return new TextResult(ctx.connection().token);
  },
});
