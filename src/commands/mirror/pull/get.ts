import { defineCommand } from '../../../cli/command.js';
import { projectOption } from '../../../cli/options.js';
import { pullMirror } from '../../../api/resources/pull-mirror.js';

export default defineCommand<{ project?: string }>({
  description: 'The pull mirror of a project and the state of its last update; credentials in the URL come back masked. Premium and Ultimate.',
  examples: ['forgectl mirror pull get --project acme/web', 'forgectl mirror pull get --project acme/web --fields update_status,last_error'],
  options: [projectOption],
  async run(opts, ctx) {
    return ctx.api.call(pullMirror.routes.get, { project: ctx.project(opts.project) });
  },
});
