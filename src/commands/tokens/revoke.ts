import { defineCommand } from '../../cli/command.js';
import {
  confirmedBeforeReading, describeToken, personalByUser, resolveUserTarget, targetOptions, tokenIdOf, tokenRecord, userOptions, type TargetOptions, type UserOptions,
} from './shared.js';

export default defineCommand<TargetOptions & UserOptions & { id: string }>({
  description: [
    'Revokes at once; whatever uses the token gets 401 from then on. Asks first, naming the token (its name, scopes and',
    'expiry). Personal tokens also accept `self`; an impersonation token is revoked with --personal --user NAME|ID',
    '--impersonation (administrators); a service account\'s with --service-account NAME (and --group for a group\'s).',
  ].join(' '),
  examples: ['forgectl tokens revoke 4 --group acme --yes', 'forgectl tokens revoke 3 --personal', 'forgectl tokens revoke 7 --service-account service_account_deploy --yes'],
  args: ['<id>'],
  options: [...targetOptions, ...userOptions],
  record: tokenRecord,
  async run(opts, ctx) {
    const { target: named } = await resolveUserTarget(opts, ctx, false);
    personalByUser(opts, named);
    // Group and project tokens are revoked by number only; personal ones also as `self`.
    const id = tokenIdOf(named, 'revoke', opts.id, named.kind === 'personal');
    await confirmedBeforeReading(ctx, `Revoke ${named.describe(id)}?`);
    // A service account is looked up by name now: after the question off a terminal.
    const target = await named.resolved(ctx.api);
    const token = await target.read(ctx.api, id);
    const what = describeToken(target, token, id === 'self');
    if (token.revoked || token.active === false) {
      ctx.io.note(`${what} is already ${token.revoked ? 'revoked' : 'inactive'}; nothing to revoke`);
      return undefined;
    }
    await ctx.confirm(`Revoke ${what}?`);
    await ctx.api.call(target.route('delete'), target.params(token.id));
    ctx.io.note(`Revoked ${what}`);
    return undefined;
  },
});
