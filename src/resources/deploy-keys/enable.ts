import { deployKeys } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseId } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; id: string }>({
  effect: 'write',
  description: 'Enables a deploy key of another project (or an instance deploy key) on this one, read-only. Needs the Maintainer role.',
  examples: ['forgectl deploy-keys enable 3 --project acme/web'],
  args: [{ spec: '<id>', description: 'the deploy key\'s ID' }],
  options: [projectOption],
  async run(opts, ctx) {
    const key_id = parseId(deployKeys, opts.id);
    const project = ctx.project(opts.project);
    const key = await ctx.api.call<Record<string, unknown>>(deployKeys.routes.enable, { project, key_id });
    ctx.io.note(`Enabled deploy key ${String(key.id)} ("${String(key.title)}") on project ${project}`);
    return key;
  },
});
