import { users } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';
import { plural } from '../../parse.js';
import { directMemberships, notYourself, personalProjects, soleOwnedGroups, someOf, userArg, userRecord, userWords } from './shared.js';


export default defineCommand<{ user: string; hardDelete?: boolean }>({
  effect: 'destructive',
  description: [
    'Deletes an account (administrators), after naming what goes with it and asking (--yes off a terminal): its personal',
    'projects, memberships, tokens, keys and emails. Its issues, merge requests, comments and snippets stay, credited to the',
    'service\'s Ghost User; --hard-delete deletes them too, and the groups the user alone owns (with their projects). Without',
    '--hard-delete the service refuses to delete a group\'s only owner: forgectl says so before sending anything (exit 6) and',
    'names the groups. To keep the account and take away its access instead: forgectl users offboard.',
  ].join(' '),
  examples: ['forgectl users delete omar --yes', 'forgectl users delete priya --hard-delete --yes'],
  args: [userArg],
  options: [{ flags: '--hard-delete', description: 'also delete what the user contributed, and the groups they alone own' }],
  async run(opts, ctx) {
    const user = await userRecord(ctx, opts.user);
    await notYourself(ctx, user, 'delete');
    const memberships = await directMemberships(ctx.api, user.id);
    const sole = await soleOwnedGroups(ctx, user, memberships);
    const soleNames = sole.map((group) => group.full_path);
    if (sole.length && !opts.hardDelete) {
      throw new CliError(
        `${user.username} is the only owner of ${plural(sole.length, 'group')} (${someOf(soleNames)}), and the service does not delete a group's only owner; nothing was sent`,
        ExitCode.rejected,
        `hand the groups over first (forgectl users offboard ${user.username} --transfer-to USER), or add --hard-delete to delete them with the user`,
      );
    }
    const personal = await personalProjects(ctx.api, user.id);
    const lost = [
      personal.length ? `${plural(personal.length, 'personal project')} (${someOf(personal)})` : '',
      memberships.length ? plural(memberships.length, 'membership') : '',
      'their tokens, SSH and GPG keys and emails',
    ].filter(Boolean);
    const contributions = opts.hardDelete
      ? `Their issues, merge requests, comments and snippets are deleted too${sole.length ? `, and so are the groups they alone own: ${someOf(soleNames)} (with their projects)` : ''}.`
      : 'Their issues, merge requests, comments and snippets stay, credited to the Ghost User.';
    await ctx.confirm(`Delete user ${userWords(user)}${opts.hardDelete ? ' (hard delete)' : ''}? Deleted with the account: ${lost.join(', ')}. ${contributions}`);
    await ctx.api.call(users.routes.delete, { user: user.id, hard_delete: opts.hardDelete || undefined });
    ctx.io.note(`Deleted user ${user.username} (the service finishes the deletion in the background)`);
    return undefined;
  },
});
