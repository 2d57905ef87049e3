import { members } from '../../api/resources/members.js';
import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { parseAccessLevel, parseDate } from '../../parse.js';
import { memberWords, outcome, placementOf, resolveUsers, whereOptions, type Where } from './shared.js';

type Opts = Where & { users: string[]; accessLevel: number; expiresAt?: string };

export default defineCommand<Opts>({
  description: 'Adds users (usernames or ids, several at once) as direct members with the access level given. A user who is a member already, or whose inherited access is higher, is reported and the others are still added (exit 9). Needs the Maintainer role (Owner to add owners).',
  examples: [
    'forgectl members add omar --group acme --access-level reporter',
    'forgectl members add omar,bob --project acme/api --access-level developer --expires-at 2030-12-31',
  ],
  fleet: 'projects-file',
  args: ['<users...>'],
  options: [
    ...whereOptions,
    { flags: '--access-level <role>', description: 'guest, planner, reporter, developer, maintainer or owner (or 10 … 50)', parse: parseAccessLevel('--access-level'), required: true },
    { flags: '--expires-at <date>', description: 'the day the membership ends (YYYY-MM-DD)', parse: parseDate('--expires-at') },
  ],
  columns: members.columns,
  recordFields: Object.keys(members.fields),
  async run(opts, ctx) {
    const { resource, params, where } = placementOf(opts, ctx);
    const done: unknown[] = [];
    const failures: string[] = [];
    for (const user of await resolveUsers(ctx, opts.users)) {
      try {
        done.push(await ctx.api.call(routeOf(resource, 'create'), { ...params, user_id: user.id, access_level: opts.accessLevel, expires_at: opts.expiresAt }));
        ctx.io.note(`Added ${memberWords({ username: user.username, access_level: opts.accessLevel })} to ${where}`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status === 401) throw error;
        failures.push(`${user.username}: ${error.message}`);
      }
    }
    return outcome(done, failures);
  },
});

