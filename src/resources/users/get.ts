import { defineCommand } from '../../cli/command.js';
import { users } from './resource.js';
import { CliError, ExitCode } from '../../errors.js';

export default defineCommand<{ user: string }>({
  effect: 'read',
  description: 'By id, or by username (looked up with GET /users?username=). Administrators see the private fields (email, identities, sign-in data …).',
  examples: ['forgectl users get 3', 'forgectl users get alice -o json'],
  args: [{ spec: '<user>', description: 'the user: username or ID' }],
  async run(opts, ctx) {
    let id = opts.user.trim();
    if (!/^\d+$/.test(id)) {
      const [found] = await ctx.api.call<Array<{ id: number }>>(users.routes.list, { username: id.replace(/^@/, '') });
      if (!found) throw new CliError(`no user named "${opts.user}"`, ExitCode.notFound);
      id = String(found.id);
    }
    return ctx.api.call(users.routes.get, { user: id });
  },
});
