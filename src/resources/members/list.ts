import { members } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { routeOf } from '../../api/resource.js';
import { memberFields, placementOf, whereOptions, withRole, type Where } from './shared.js';

type Opts = Where & { inherited?: boolean; query?: string };

export default defineCommand<Opts>({
  effect: 'read',
  description: 'The direct members of a project or group; --inherited lists everyone with access, also through the groups above and the groups it is shared with (the highest access level each has).',
  examples: [
    'forgectl members list --group acme',
    'forgectl members list --project acme/api --inherited',
    'forgectl members list --projects-file services.txt --query priya',
    'forgectl members list --project acme/api --query ali -o json',
  ],
  fleet: 'projects-file',
  options: [
    ...whereOptions,
    { flags: '--inherited', description: 'everyone with access: inherited and invited members too' },
    { flags: '--query <text>', description: 'only members whose name or username contains the text' },
  ],
  list: true,
  columns: members.columns,
  recordFields: memberFields,
  async run(opts, ctx) {
    const { resource, params } = placementOf(opts, ctx);
    return ctx.api.list<{ access_level?: number }>(routeOf(resource, opts.inherited ? 'all' : 'list'), { ...params, query: opts.query }, ctx.paging).map(withRole);
  },
});

