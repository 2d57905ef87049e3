import type { TokenRecord } from '../../resources/access-tokens/values.js';
import { defineCommand } from '../../cli/command.js';
import { personalByUser, parseTokenId, resolveUserTarget, selfElsewhere, targetOptions, userOptions, withLevelName, type TargetOptions, type UserOptions } from './shared.js';

export default defineCommand<TargetOptions & UserOptions & { id: string }>({
  description: '`self` is the token forgectl authenticates with (a bot checking itself, or your own personal token). An impersonation token is shown with --personal --user NAME|ID --impersonation (administrators).',
  examples: [
    'forgectl tokens get 4 --group acme',
    'forgectl -p bot tokens get self --group acme',
    'forgectl tokens get self --personal -o json',
  ],
  args: ['<id>'],
  options: [...targetOptions, ...userOptions],
  async run(opts, ctx) {
    const { target } = await resolveUserTarget(opts, ctx);
    personalByUser(opts, target);
    const id = parseTokenId(opts.id, target.kind !== 'impersonation');
    try {
      return withLevelName(await ctx.api.call<TokenRecord>(target.route('get'), target.params(id)));
    } catch (error) {
      throw selfElsewhere(error, target, id);
    }
  },
});
