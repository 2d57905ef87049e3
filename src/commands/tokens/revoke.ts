import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { defineCommand } from '../../cli/command.js';
import {
  confirmedBeforeReading, describeToken, parseTokenId, personalByUser, resolveUserTarget, targetOptions, userOptions, type TargetOptions, type UserOptions,
} from './shared.js';

export default defineCommand<TargetOptions & UserOptions & { id: string }>({
  description: [
    'Revokes at once; whatever uses the token gets 401 from then on. Asks first, naming the token (its name, scopes and',
    'expiry). Personal tokens also accept `self`; an impersonation token is revoked with --personal --user NAME|ID',
    '--impersonation (administrators).',
  ].join(' '),
  examples: ['forgectl tokens revoke 4 --group acme --yes', 'forgectl tokens revoke 3 --personal'],
  args: ['<id>'],
  options: [...targetOptions, ...userOptions],
  async run(opts, ctx) {
    const { target } = await resolveUserTarget(opts, ctx);
    personalByUser(opts, target);
    // Group and project tokens are revoked by number only (api-facts §1.1); personal ones also as `self`.
    const id = parseTokenId(opts.id, target.kind === 'personal');
    await confirmedBeforeReading(ctx, `Revoke ${target.describe(id)}?`);
    const token = await ctx.api.call<TokenRecord>(target.route('get'), target.params(id));
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
