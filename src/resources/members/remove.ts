import { routeOf } from '../../api/resource.js';
import type { Context } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { accessTokens } from '../access-tokens/resource.js';
import { TOKEN_BOT } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { someOf } from '../users/shared.js';
import { belowWords, membershipsBelow, type Below } from './below.js';
import { eachUser, explained, lastOwnerError, memberWords, notDirectMember, placementOf, resolveUsers, Role, soleOwner, usersArg, type Where, whereOptions } from './shared.js';

type Opts = Where & { users: string[]; skipSubresources?: boolean; unassignIssuables?: boolean; projectsFile?: string };
type Found = { id: number; username: string; access_level: number };

export default defineCommand<Opts>({
  effect: 'destructive',
  description: [
    'Removes direct members (usernames or ids, several at once), after naming each with their access level and asking',
    '(--yes off a terminal). Removing a member of a group also removes their direct memberships of its subgroups and',
    'of the projects in it and in them, as the service does: the question names how many go with it, and',
    '--skip-subresources keeps them. Access inherited from a group above stays: remove them there. Needs the Maintainer',
    'role (Owner to remove owners); the last owner of a group stays. Removing the bot user of a group\'s or project\'s',
    'access token revokes that token: the question and --dry-run name the token. Across a fleet (--projects-file), a',
    'project the user is not a direct member of has nothing to remove and does not stop the run.',
  ].join(' '),
  exits: { 9: 'some of the users could not be removed (the others were)' },
  examples: ['forgectl members remove omar --project acme/web --yes', 'forgectl members remove priya --group acme --skip-subresources --unassign-issuables --yes'],
  fleet: 'projects-file',
  args: [usersArg],
  options: [
    ...whereOptions,
    { flags: '--skip-subresources', description: 'with --group: keep their direct memberships of its subgroups and projects (removed with the group\'s by default)' },
    { flags: '--unassign-issuables', description: 'also unassign them from the issues and merge requests of the group or project' },
  ],
  async run(opts, ctx) {
    const { resource, params, where } = placementOf(opts, ctx);
    if (opts.skipSubresources && params.group === undefined) throw new UsageError('--skip-subresources is for --group: a project has no subgroups or projects below it');
    const found: Found[] = [];
    for (const user of await resolveUsers(ctx, opts.users)) {
      const member = await ctx.api.call<Found>(routeOf(resource, 'get'), { ...params, user_id: user.id }).catch((error: unknown) => {
        const explained = notDirectMember(error, user.username, where, 'access inherited from a group above is removed there');
        // Across a fleet, a project they are not a member of has nothing to remove: the run goes on to the others.
        if (opts.projectsFile === undefined || explained === error) throw explained;
        ctx.io.note(`${user.username} is not a direct member of ${where}: nothing to remove`);
        return undefined;
      });
      if (member) found.push(member);
    }
    if (!found.length) return undefined;
    const sole = await soleOwner(ctx, resource, params, found);
    if (sole) {
      throw lastOwnerError(sole, where, params.group);
    }
    const below = params.group !== undefined && !opts.skipSubresources ? await membershipsBelow(ctx, params.group as string | number, found) : new Map<number, Below>();
    const revokes = await tokensRevoked(ctx, params, found);
    if (revokes && ctx.globals.dryRun) ctx.io.note(revokes);
    await ctx.confirm(`Remove ${found.map(memberWords).join(', ')} from ${where}?${alsoGoes(found, below)}${revokes ? ` ${revokes}` : ''}`);
    const result = await eachUser(found, async (member) => {
      const flags = { skip_subresources: opts.skipSubresources || undefined, unassign_issuables: opts.unassignIssuables || undefined };
      await ctx.api.call(routeOf(resource, 'delete'), { ...params, user_id: member.id, ...flags }).catch((error: unknown) => {
        throw explained(error, { 403: member.access_level === Role.owner ? 'only an Owner removes owners' : `removing members needs the Maintainer role in ${where}` });
      });
      const along = belowWords(below.get(member.id));
      ctx.io.note(`Removed ${memberWords(member)} from ${where}${along ? `, and their direct memberships of ${along} below it` : ''}`);
      return undefined;
    });
    // Removals print nothing on stdout: what was done is said on stderr.
    return result instanceof ResultWithExit ? new ResultWithExit(undefined, result.exitCode, result.message) : undefined;
  },
});

/** " It also removes priya's direct memberships of 1 subgroup and 2 projects (acme/a, …) below it; --skip-subresources keeps them." */
function alsoGoes(found: Found[], below: Map<number, Below>): string {
  const whose = found.flatMap((member) => {
    const places = below.get(member.id);
    const words = belowWords(places);
    return places && words ? [`${member.username}'s direct memberships of ${words} (${someOf([...places.groups, ...places.projects])})`] : [];
  });
  return whose.length ? ` It also removes ${whose.join('; ')} below it; --skip-subresources keeps them.` : '';
}

/**
 * "project_7_bot_1f2e is the bot user of access token 'ci-deployer'; removing it revokes the token.": the service
 * revokes a group's or project's access token when its bot user leaves. The tokens are read only when a bot is among
 * those removed; a caller who may not list them (the question is then without the names) is not stopped by it.
 */
async function tokensRevoked(ctx: Context, params: Record<string, unknown>, found: Found[]): Promise<string> {
  const bots = found.filter((member) => TOKEN_BOT.test(member.username));
  if (!bots.length) return '';
  const kind = params.project === undefined ? 'group' : 'project';
  const names = new Map<number, string[]>();
  try {
    for await (const token of ctx.api.list<{ name: string; user_id: number }>(accessTokens.parents[kind].routes.list, { [kind]: params[kind], state: 'active' }, { all: true })) {
      names.set(token.user_id, [...(names.get(token.user_id) ?? []), token.name]);
    }
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 401) throw error;
  }
  return bots.map((bot) => {
    const tokens = names.get(bot.id);
    const which = tokens?.length ? `${tokens.length > 1 ? 'access tokens' : 'access token'} ${tokens.map((name) => `'${name}'`).join(', ')}` : `a ${kind} access token`;
    return `${bot.username} is the bot user of ${which}; removing it revokes the ${tokens && tokens.length > 1 ? 'tokens' : 'token'}.`;
  }).join(' ');
}
