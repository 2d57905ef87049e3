import { defineCommand } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../cli/parse.js';
import { badgePath } from './shared.js';

export default defineCommand<{ project?: string; id: string }>({
  description: 'Only project badges can be deleted here; a badge of kind "group" belongs to the group.',
  examples: ['forgectl badges delete 3 --project acme/api --yes'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('badge id', 1)(opts.id);
    const project = ctx.project(opts.project);
    // The service refuses group badges with 403 only after the prompt; looking first gives the clearer answer.
    const badge = await ctx.api.get<{ kind?: string; name?: string | null }>(badgePath(project, id));
    if (badge.kind === 'group') {
      throw new CliError(`badge ${id} is a group badge and cannot be deleted through project ${project}`, ExitCode.auth, 'delete it on its group instead');
    }
    await ctx.confirm(`Delete badge ${id}${badge.name ? ` (${badge.name})` : ''} of project ${project}?`);
    await ctx.api.delete(badgePath(project, id));
    ctx.io.note(`Deleted badge ${id} of project ${project}`);
    return undefined;
  },
});
