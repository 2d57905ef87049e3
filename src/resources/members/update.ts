import { members } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { accessLevelName, checkNotPast, parseAccessLevel, parseDate } from '../../parse.js';
import { eachUser, explained, lastOwnerError, memberFields, memberWords, notDirectMember, placeFlag, placementOf, resolveUsers, Role, soleOwner, usersArg, type Where, whereOptions, withRole } from './shared.js';

type Opts = Where & { users: string[]; accessLevel?: number; expiresAt?: string | false };

export default defineCommand<Opts>({
  effect: 'write',
  description: 'Changes the access level or expiry of direct members (usernames or ids, several at once). The service needs the access level with every change: without --access-level the current one is kept. A group\'s last owner is not demoted or given an end date (owners who are blocked or bots of access tokens do not count: nobody can act as them). Needs the Maintainer role (Owner for owners).',
  exits: { 9: 'some of the users could not be updated (the others were)' },
  examples: [
    'forgectl members update bob --group acme --access-level maintainer',
    'forgectl members update alice --group acme --expires-at 2030-06-30',
    'forgectl members update alice --group acme --no-expires-at',
  ],
  fleet: 'projects-file',
  args: [usersArg],
  options: [
    ...whereOptions,
    { flags: '--access-level <role>', description: 'guest, planner, reporter, developer, maintainer or owner (or 10 … 50)', parse: parseAccessLevel('--access-level') },
    { flags: '--expires-at <date>', description: 'the day the membership ends (YYYY-MM-DD)', parse: parseDate('--expires-at') },
    { flags: '--no-expires-at', description: 'the membership does not end' },
  ],
  columns: members.columns,
  recordFields: memberFields,
  async run(opts, ctx) {
    if (opts.accessLevel === undefined && opts.expiresAt === undefined) throw new UsageError('nothing to change: give --access-level, --expires-at or --no-expires-at');
    if (typeof opts.expiresAt === 'string') checkNotPast('--expires-at', opts.expiresAt, ctx.now());
    const { resource, params, where } = placementOf(opts, ctx);
    return eachUser(await resolveUsers(ctx, opts.users), async (user) => {
      const notDirect = (error: unknown): unknown => notDirectMember(error, user.username, where, `access inherited from a group above is changed there, or given here with: forgectl members add ${user.username} ${placeFlag(params)} --access-level ${opts.accessLevel === undefined ? 'LEVEL' : accessLevelName(opts.accessLevel)}`);
      // Read when the level is kept, or when a group's owner may be demoted or given an end: its last owner someone can
      // act as stays one, for good.
      const demotes = params.group !== undefined && ((opts.accessLevel !== undefined && opts.accessLevel < Role.owner) || typeof opts.expiresAt === 'string');
      const current =
        opts.accessLevel === undefined || demotes
          ? await ctx.api.call<{ access_level: number }>(routeOf(resource, 'get'), { ...params, user_id: user.id }).catch((error: unknown) => {
              throw notDirect(error);
            })
          : undefined;
      const level = opts.accessLevel ?? current!.access_level;
      const sole = demotes ? await soleOwner(ctx, resource, params, [{ ...user, access_level: current!.access_level }]) : undefined;
      if (sole) {
        throw lastOwnerError(sole, where, params.group);
      }
      const expires = opts.expiresAt === false ? '' : opts.expiresAt;
      const changed = await ctx.api.call(routeOf(resource, 'update'), { ...params, user_id: user.id, access_level: level, expires_at: expires }).catch((error: unknown) => {
        throw explained(notDirect(error), { 403: level === Role.owner || current?.access_level === Role.owner ? 'only an Owner changes owners' : `changing members needs the Maintainer role in ${where}` });
      });
      ctx.io.note(`Changed ${memberWords({ username: user.username, access_level: level })} in ${where}`);
      return withRole(changed as { access_level?: number });
    });
  },
});
