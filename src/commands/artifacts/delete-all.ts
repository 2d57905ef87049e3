import { artifacts } from '../../api/resources/artifacts.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';

const WHAT_HAPPENS =
  'the service marks every job artifact of the project as expired now and removes them in the background (asynchronously, by its ' +
  'regular cleanup); the artifacts of the latest successful pipeline of each branch and tag are kept, and job logs are never deleted';

export default defineCommand<{ project?: string }>({
  description: `Deletes the job artifacts of a whole project: ${WHAT_HAPPENS}. Needs the Maintainer role.`,
  examples: ['forgectl artifacts delete-all --project acme/api --yes'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    await ctx.confirm(`Delete the job artifacts of project ${project}? ${WHAT_HAPPENS[0].toUpperCase()}${WHAT_HAPPENS.slice(1)}.`);
    await ctx.api.call(artifacts.routes.deleteAll, { project });
    ctx.io.note(`accepted: the artifacts of ${project} are expired now and will be removed in the background`);
    return undefined;
  },
});
