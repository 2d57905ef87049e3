import { defineCommand } from '../../cli/command.js';
import { groups } from './resource.js';
import { groupArg } from '../../cli/options.js';
import { withoutSecretValues } from '../variables/resource.js';

export default defineCommand<{ group?: string; withProjects?: boolean }>({
  effect: 'read',
  description: 'One group by id or full path (default: the profile\'s default_group). The service can embed up to 100 of its projects: ask with --with-projects (or list them with `projects list --group`).',
  examples: ['forgectl groups get acme', 'forgectl groups get 1 -o json', 'forgectl groups get acme --fields shared_with_groups -o yaml'],
  args: [groupArg],
  options: [{ flags: '--with-projects', description: 'include the group\'s projects (at most 100)' }],
  async run(opts, ctx) {
    // Its runner registration token, in the answer an owner gets, is not printed (withoutSecretValues says why).
    return withoutSecretValues(await ctx.api.call(groups.routes.get, { group: ctx.group(opts.group, 'the group as an argument (forgectl groups get ID|PATH)'), with_projects: Boolean(opts.withProjects) }));
  },
});
