import type { TokenRecord } from '../../api/access-tokens.js';
import { defineCommand } from '../../cli/command.js';
import { parseTokenId, resolveTarget, selfElsewhere, targetOptions, withLevelName, type TargetOptions } from './shared.js';

export default defineCommand<TargetOptions & { id: string }>({
  description: '`self` is the token forgectl authenticates with (a bot checking itself, or your own personal token).',
  examples: ['forgectl tokens get 4 --group acme', 'forgectl -p bot tokens get self --group acme', 'forgectl tokens get self --personal -o json'],
  args: ['<id>'],
  options: targetOptions,
  async run(opts, ctx) {
    const target = resolveTarget(opts);
    const id = parseTokenId(opts.id);
    try {
      return withLevelName(await ctx.api.call<TokenRecord>(target.route('get'), target.params(id)));
    } catch (error) {
      throw selfElsewhere(error, target, id);
    }
  },
});
