import { members } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { accessLevelName, checkNotPast, parseAccessLevel, parseDate } from '../../parse.js';
import { eachUser, explained, memberFields, memberWords, placeFlag, placementOf, resolveUsers, Role, usersArg, type Where, whereOptions, withRole } from './shared.js';

type Opts = Where & { users: string[]; accessLevel: number; expiresAt?: string };

export default defineCommand<Opts>({
  effect: 'write',
  description: 'Adds users (usernames or ids, several at once) as direct members with the access level given. One user that cannot be added is an error with the reason (a member already: exit 6); of several, each that cannot is reported and the others are still added (exit 9). An expiry in the past is refused before anything is sent. Needs the Maintainer role (Owner to add owners).',
  exits: { 9: 'some of the users could not be added (the others were)' },
  examples: [
    'forgectl members add omar --group acme --access-level reporter',
    'forgectl members add omar,bob --project acme/api --access-level developer --expires-at 2030-12-31',
  ],
  fleet: 'projects-file',
  args: [usersArg],
  options: [
    ...whereOptions,
    { flags: '--access-level <role>', description: 'guest, planner, reporter, developer, maintainer or owner (or 10 … 50)', parse: parseAccessLevel('--access-level'), required: true },
    { flags: '--expires-at <date>', description: 'the day the membership ends (YYYY-MM-DD)', parse: parseDate('--expires-at') },
  ],
  columns: members.columns,
  recordFields: memberFields,
  async run(opts, ctx) {
    if (opts.expiresAt !== undefined) checkNotPast('--expires-at', opts.expiresAt, ctx.now());
    const { resource, params, where } = placementOf(opts, ctx);
    const users = await resolveUsers(ctx, opts.users);
    return eachUser(users, async (user) => {
      const added = await ctx.api.call(routeOf(resource, 'create'), { ...params, user_id: user.id, access_level: opts.accessLevel, expires_at: opts.expiresAt }).catch((error: unknown) => {
        throw explained(error, {
          409: `${user.username} is a member of ${where} already; change the access level with: forgectl members update ${user.username} ${placeFlag(params)} --access-level ${accessLevelName(opts.accessLevel)}`,
          403: opts.accessLevel === Role.owner ? 'only an Owner adds owners' : `adding members needs the Maintainer role in ${where}`,
        });
      });
      ctx.io.note(`Added ${memberWords({ username: user.username, access_level: opts.accessLevel })} to ${where}`);
      return withRole(added as { access_level?: number });
    });
  },
});

