import { members } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { accessLevelName, checkNotPast, parseAccessLevel, parseDate } from '../../parse.js';
import { eachUser, explained, memberFields, memberWords, placeFlag, placementOf, resolveUsers, Role, usersArg, type Where, whereOptions, withRole } from './shared.js';

type Opts = Where & { users: string[]; accessLevel: number; expiresAt?: string };
interface Member { access_level: number; expires_at?: string | null }

export default defineCommand<Opts>({
  effect: 'write',
  description: 'Adds users (usernames or ids, several at once) as direct members with the access level given. A user who is a member already as asked (the same access level and expiry) is left as is (exit 0), so a bulk add can run again; one who is a member differently is an error saying what differs (exit 6). One user that cannot be added is an error with the reason; of several, each that cannot is reported and the others are still added (exit 9). An expiry in the past is refused before anything is sent. Needs the Maintainer role (Owner to add owners).',
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
      let added: Member;
      try {
        added = await ctx.api.call<Member>(routeOf(resource, 'create'), { ...params, user_id: user.id, access_level: opts.accessLevel, expires_at: opts.expiresAt });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 409)) throw explained(error, { 403: opts.accessLevel === Role.owner ? 'only an Owner adds owners' : `adding members needs the Maintainer role in ${where}` });
        // A re-run of a bulk add: a membership already as asked is done; one that differs says how.
        const member = await ctx.api.call<Member>(routeOf(resource, 'get'), { ...params, user_id: user.id });
        const differences = [
          member.access_level === opts.accessLevel ? '' : `access level ${accessLevelName(member.access_level)}, not ${accessLevelName(opts.accessLevel)}`,
          (member.expires_at ?? null) === (opts.expiresAt ?? null) ? '' : `expires ${member.expires_at ?? 'never'}, not ${opts.expiresAt ?? 'never'}`,
        ].filter(Boolean);
        if (differences.length) throw error.explained(error.message, `${user.username} is a member of ${where} already, differently: ${differences.join('; ')}; change it with: forgectl members update ${user.username} ${placeFlag(params)} --access-level ${accessLevelName(opts.accessLevel)}${opts.expiresAt ? ` --expires-at ${opts.expiresAt}` : ''}`);
        ctx.io.note(`${memberWords({ username: user.username, access_level: opts.accessLevel })} is already a member of ${where} as asked: nothing sent`);
        return withRole(member);
      }
      ctx.io.note(`Added ${memberWords({ username: user.username, access_level: opts.accessLevel })} to ${where}`);
      return withRole(added);
    });
  },
});

