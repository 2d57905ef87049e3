import { artifacts } from './resource.js';
import { pipelines } from '../pipelines/resource.js';
import { projects } from '../projects/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';

const WHAT_HAPPENS =
  'the service marks every job artifact of the project as expired now and removes them in the background (asynchronously, by its ' +
  'regular cleanup), those kept with `artifacts keep` too; the artifacts of the latest successful pipeline of each branch and tag ' +
  '(and of its child pipelines) are kept while the project keeps the latest artifacts (its keep_latest_artifact setting, on by ' +
  'default), and job logs are never deleted';

/**
 * What the service keeps, in words for the question: the latest successful pipeline of each ref (by creation, not
 * a child pipeline), or nothing when the project does not keep its latest artifacts.
 */
async function keptWords(ctx: Context, project: string): Promise<string> {
  const settings = await ctx.api.call<{ keep_latest_artifact?: boolean }>(projects.routes.get, { project });
  if (settings.keep_latest_artifact === false) return 'Nothing is kept: the project does not keep the artifacts of its latest successful pipelines (keep_latest_artifact is off).';
  const latest = new Map<string, number>();
  for await (const pipeline of ctx.api.list<{ id: number; ref: string; source?: string }>(pipelines.routes.list, { project, status: 'success', order_by: 'id', sort: 'desc' }, { limit: 500 })) {
    if (pipeline.source !== 'parent_pipeline' && !latest.has(pipeline.ref)) latest.set(pipeline.ref, pipeline.id);
  }
  if (!latest.size) return 'No ref has a successful pipeline, so nothing is kept.';
  return `Kept: the latest successful pipeline of each branch and tag (${[...latest].map(([ref, id]) => `${ref}: ${id}`).join(', ')}) and its child pipelines.`;
}

export default defineCommand<{ project?: string }>({
  effect: 'destructive',
  description: `Deletes the job artifacts of a whole project: ${WHAT_HAPPENS}. The question names the pipelines kept. Needs the Maintainer role.`,
  examples: ['forgectl artifacts delete-all --project acme/api --yes'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const kept = await keptWords(ctx, project);
    await ctx.confirm(`Delete the job artifacts of project ${project}? Every artifact expires now, those kept with \`artifacts keep\` too, and is removed in the background; job logs stay. ${kept}`);
    await ctx.api.call(artifacts.routes.deleteAll, { project });
    ctx.io.note(`accepted: the artifacts of ${project} are expired now and will be removed in the background. ${kept}`);
    return undefined;
  },
});
