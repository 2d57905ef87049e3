import { snippets } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError } from '../../errors.js';
import { parseInteger } from '../../parse.js';

export default defineCommand<{ project?: string; id: string }>({
  effect: 'read',
  description: 'The user agent and IP address the snippet was created from, and whether it was reported as spam. The instance records them only while spam checking (Akismet) is enabled; a snippet made without it has none (404). Administrators only.',
  examples: ['forgectl snippets user-agent 1 --project acme/api'],
  args: ['<id>'],
  options: [projectOption],
  async run(opts, ctx) {
    const id = parseInteger('snippet id', 1)(opts.id);
    return ctx.api.call(snippets.parents.project.routes.userAgent, { project: ctx.project(opts.project), snippet_id: id }).catch((error: unknown) => {
      if (!(error instanceof ApiError) || !/UserAgentDetail/.test(error.message)) throw error;
      throw error.explained(error.message, 'the instance records where a snippet came from only while spam checking (Akismet) is enabled; this snippet has no such record');
    });
  },
});
