import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { pullMirror } from './resource.js';

export default defineCommand<{ project?: string }>({
  effect: 'write',
  description: 'Starts a mirror update now; follow it with `mirror pull get` (update_status).',
  examples: ['forgectl mirror pull sync --project acme/web'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.api.call(pullMirror.routes.sync, { project });
    ctx.io.note(`Started a mirror update of project ${project}; check it with: forgectl mirror pull get --project ${project}`);
    return undefined;
  },
});
