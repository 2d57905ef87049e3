import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';
import { p } from '../../api/path.js';

export default defineCommand<{ user: string }>({
  description: 'By id, or by username (looked up with GET /users?username=). Administrators see the private fields (email, identities, sign-in data …).',
  examples: ['forgectl users get 3', 'forgectl users get alice -o json'],
  args: ['<user>'],
  async run(opts, ctx) {
    let id = opts.user.trim();
    if (!/^\d+$/.test(id)) {
      const [found] = await ctx.api.get<Array<{ id: number }>>('/users', { username: id.replace(/^@/, '') });
      if (!found) throw new CliError(`no user named "${opts.user}"`, ExitCode.notFound);
      id = String(found.id);
    }
    return ctx.api.get(p`/users/${id}`);
  },
});
