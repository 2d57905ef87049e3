import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { pullMirror } from './resource.js';

export default defineCommand<{ project?: string }>({
  effect: 'destructive',
  description: 'Removes pull mirroring (enabled=false); the repository keeps what it has.',
  examples: ['forgectl mirror pull disable --project acme/web --yes'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.confirm(`Stop pull mirroring of project ${project}?`);
    return ctx.api.call(pullMirror.routes.update, { project, enabled: false });
  },
});
