import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { eachUser, explained, memberWords, placementOf, resolveUsers, Role, soleOwner, usersArg, type Where, whereOptions } from './shared.js';

type Opts = Where & { users: string[] };

export default defineCommand<Opts>({
  effect: 'destructive',
  description: 'Removes direct members (usernames or ids, several at once), after naming each with their access level and asking (--yes off a terminal). Access inherited from a group above stays: remove them there. Needs the Maintainer role (Owner to remove owners); the last owner of a group stays.',
  exits: { 9: 'some of the users could not be removed (the others were)' },
  examples: ['forgectl members remove omar --project acme/web --yes'],
  fleet: 'projects-file',
  args: [usersArg],
  options: whereOptions,
  async run(opts, ctx) {
    const { resource, params, where } = placementOf(opts, ctx);
    const found: Array<{ id: number; username: string; access_level: number }> = [];
    for (const user of await resolveUsers(ctx, opts.users)) {
      const member = await ctx.api.call<{ id: number; username: string; access_level: number }>(routeOf(resource, 'get'), { ...params, user_id: user.id }).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) throw new CliError(`${user.username} is not a direct member of ${where}`, ExitCode.notFound);
        throw error;
      });
      found.push(member);
    }
    const sole = await soleOwner(ctx, resource, params, found);
    if (sole) {
      throw new CliError(`${sole} is the only owner of ${where}, and a group keeps at least one owner; nothing was sent`, ExitCode.auth, `make another member an owner first: forgectl members update USER --group ${String(params.group)} --access-level owner`);
    }
    await ctx.confirm(`Remove ${found.map(memberWords).join(', ')} from ${where}?`);
    const result = await eachUser(found, async (member) => {
      await ctx.api.call(routeOf(resource, 'delete'), { ...params, user_id: member.id }).catch((error: unknown) => {
        throw explained(error, { 403: member.access_level === Role.owner ? 'only an Owner removes owners' : `removing members needs the Maintainer role in ${where}` });
      });
      ctx.io.note(`Removed ${memberWords(member)} from ${where}`);
      return undefined;
    });
    // Removals print nothing on stdout: what was done is said on stderr.
    return result instanceof ResultWithExit ? new ResultWithExit(undefined, result.exitCode, result.message) : undefined;
  },
});

