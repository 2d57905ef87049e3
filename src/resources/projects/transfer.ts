import { projects } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { deletedArg, namedForDeletion } from '../../cli/options.js';
import { withoutSecretValues } from '../variables/resource.js';

export default defineCommand<{ project: string; namespace: string }>({
  effect: 'destructive',
  description: 'Moves a project to another group or personal namespace (its URL changes; the old one redirects). Needs the Owner role in the project and Maintainer in the target group.',
  examples: ['forgectl projects transfer acme/web --namespace acme/platform --yes'],
  args: [deletedArg('project', 'transfer')],
  options: [{ flags: '--namespace <id|path>', description: 'the group (or username) to move it to', required: true }],
  async run(opts, ctx) {
    const project = namedForDeletion(opts.project, 'project', 'transfer');
    await ctx.confirm(`Move project ${project} to ${opts.namespace}?`);
    const moved = await ctx.api.call<{ path_with_namespace: string }>(projects.routes.transfer, { project, namespace: opts.namespace });
    ctx.io.note(`Moved project ${project} to ${moved.path_with_namespace}`);
    return withoutSecretValues(moved);
  },
});
