import { snippets } from '../../api/resources/snippets.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseInteger } from '../../parse.js';

export default defineCommand<{ project?: string; id: string }>({
  effect: 'read',
  description: 'The user agent and IP address the snippet was created from, and whether it was reported as spam. Administrators only.',
  examples: ['forgectl snippets user-agent 1 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('snippet id', 1)(opts.id);
    return ctx.api.call(snippets.parents.project.routes.userAgent, { project: ctx.project(opts.project), snippet_id: id });
  },
});
