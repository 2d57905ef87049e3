import { defineCommand } from '../../cli/command.js';
import { parseTokenId, resolveTarget, targetOptions, type TargetOptions } from './shared.js';

export default defineCommand<TargetOptions & { id: string }>({
  description: 'Revokes at once; whatever uses the token gets 401 from then on. Personal tokens also accept `self`.',
  examples: ['forgectl tokens revoke 4 --group acme --yes', 'forgectl tokens revoke 3 --personal'],
  args: ['<id>'],
  options: targetOptions,
  async run(opts, ctx) {
    const target = resolveTarget(opts);
    // Group and project tokens are revoked by number only (api-facts §1.1); personal ones also as `self`.
    const id = parseTokenId(opts.id, target.kind === 'personal');
    await ctx.confirm(`Revoke ${target.describe(id)}?`);
    await ctx.api.call(target.route('delete'), target.params(id));
    ctx.io.note(`Revoked ${target.describe(id)}`);
    return undefined;
  },
});
