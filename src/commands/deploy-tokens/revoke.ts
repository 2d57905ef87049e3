import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { parseId } from '../../cli/resource-commands.js';
import { ownerOf, ownerOptions, type OwnerOptions } from './shared.js';

export default defineCommand<OwnerOptions & { id: string }>({
  description: 'Needs the Maintainer role. Revokes at once: whatever signs in with the token is refused from then on. The token leaves the project\'s or group\'s list; the instance list keeps it, revoked.',
  examples: ['forgectl deploy-tokens revoke 2 --project acme/api --yes', 'forgectl deploy-tokens revoke 4 --group acme'],
  args: ['<id>'],
  options: ownerOptions,
  async run(opts, ctx) {
    const { resource, params, where } = ownerOf(opts, ctx);
    const target = { ...params, token_id: parseId(resource, opts.id) };
    const token = await ctx.api.call<{ id: number; name: string; username: string }>(routeOf(resource, 'get'), target);
    const what = `deploy token ${String(target.token_id)} ("${token.name}", user ${token.username}) of ${where}`;
    await ctx.confirm(`Revoke ${what}?`);
    await ctx.api.call(routeOf(resource, 'delete'), target);
    ctx.io.note(`Revoked ${what}`);
    return undefined;
  },
});
