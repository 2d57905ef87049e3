import { defineCommand } from '../../cli/command.js';
import { projects } from './resource.js';
import { projectArg } from '../../cli/options.js';
import { withoutSecretValues } from '../variables/resource.js';

export default defineCommand<{ project?: string; statistics?: boolean; license?: boolean }>({
  effect: 'read',
  description: 'One project by id or full path (default: the profile\'s default_project), with your permissions in it.',
  examples: ['forgectl projects get acme/api', 'forgectl projects get 1 --statistics -o json', 'forgectl projects get acme/api --fields default_branch,visibility,permissions.group_access.access_level'],
  args: [projectArg],
  options: [
    { flags: '--statistics', description: 'include storage and commit statistics (Reporter and up)' },
    { flags: '--license', description: 'include the project\'s license' },
  ],
  async run(opts, ctx) {
    // Its runner registration token, in the answer a maintainer gets, is not printed (withoutSecretValues says why).
    return withoutSecretValues(await ctx.api.call(projects.routes.get, { project: ctx.project(opts.project, 'the project as an argument (forgectl projects get ID|PATH)'), statistics: opts.statistics || undefined, license: opts.license || undefined }));
  },
});
