import { routeOf } from '../../api/resource.js';
import { defineCommand } from '../../cli/command.js';
import { memberFields, placementOf, resolveUsers, whereOptions, withRole, type Where } from './shared.js';

export default defineCommand<Where & { user: string; inherited?: boolean }>({
  effect: 'read',
  description: 'One direct member by username or user id; --inherited also finds access through the groups above (the highest level).',
  examples: ['forgectl members get alice --group acme', 'forgectl members get alice --project acme/web --inherited', 'forgectl members get alice --projects-file services.txt --inherited --fields project,access_level'],
  fleet: 'projects-file',
  args: [{ spec: '<user>', description: 'the member: username or user ID' }],
  options: [...whereOptions, { flags: '--inherited', description: 'also inherited and invited access' }],
  recordFields: memberFields,
  async run(opts, ctx) {
    const { resource, params } = placementOf(opts, ctx);
    const [user] = await resolveUsers(ctx, [opts.user]);
    return withRole(await ctx.api.call<{ access_level?: number }>(routeOf(resource, opts.inherited ? 'allGet' : 'get'), { ...params, user_id: user.id }));
  },
});
