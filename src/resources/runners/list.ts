import { runners } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { filterOptions, filterQuery, runnerList, scopeOptions, type FilterOptions, type ScopeOptions } from './shared.js';

export default defineCommand<ScopeOptions & FilterOptions>({
  effect: 'read',
  description: [
    'Without --instance, --group or --project: the runners you manage (group and project runners where you have the',
    'Maintainer role). Status: online (contacted within 2 hours), offline, stale (no contact for a week, or never',
    'contacted and created over a week ago) or never_contacted. The time of last contact is in `runners get` and',
    '`runners audit`.',
  ].join(' '),
  examples: [
    'forgectl runners list --instance --status stale',
    'forgectl runners list --group acme --type group_type',
    'forgectl runners list --project acme/api --tag gpu -o json',
  ],
  options: [...scopeOptions, ...filterOptions],
  list: true,
  columns: runners.columns,
  recordFields: Object.keys(runners.fields),
  async run(opts, ctx) {
    const { route, params } = runnerList(opts, ctx);
    return ctx.api.list(route, { ...params, ...filterQuery(opts) }, ctx.paging);
  },
});
