import { branches } from './resource.js';
import { mergeRequests } from '../merge-requests/resource.js';
import { placed, routeOf } from '../../api/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { plural } from '../../parse.js';

interface Branch {
  name: string;
  merged: boolean;
  protected: boolean;
  default: boolean;
}

/** A merged branch the service keeps, and why. */
interface Kept {
  name: string;
  why: string;
}

/**
 * What the service's "delete merged branches" deletes: the branches merged into the default branch, except the
 * protected ones (by name or wildcard, the project's rules and its groups') and those an open merge request comes
 * from or goes to. Read before anything is sent, so the question and --dry-run name exactly what goes.
 */
export async function mergedBranches(ctx: Context, project: string): Promise<{ deleted: string[]; kept: Kept[] }> {
  const openRequests = ctx.api.list<{ source_branch: string; target_branch: string }>(routeOf(placed(mergeRequests, 'project'), 'list'), { project, state: 'opened' }, { all: true });
  const inReview = new Set<string>();
  for await (const request of openRequests) inReview.add(request.source_branch).add(request.target_branch);
  const deleted: string[] = [];
  const kept: Kept[] = [];
  for await (const branch of ctx.api.list<Branch>(branches.routes.list, { project }, { all: true })) {
    if (!branch.merged || branch.default) continue;
    if (branch.protected) kept.push({ name: branch.name, why: 'protected' });
    else if (inReview.has(branch.name)) kept.push({ name: branch.name, why: 'an open merge request' });
    else deleted.push(branch.name);
  }
  return { deleted, kept };
}

/** "; kept, protected: a, b; kept, an open merge request: c" */
function keptWords(kept: Kept[]): string {
  const reasons = [...new Set(kept.map((branch) => branch.why))];
  return reasons.map((why) => `; kept, ${why}: ${kept.filter((branch) => branch.why === why).map((branch) => branch.name).join(', ')}`).join('');
}

export default defineCommand<{ project?: string }>({
  effect: 'destructive',
  description: [
    'Deletes the branches merged into the default branch, as the service does: never the default branch, a protected',
    "branch (by name or wildcard, the project's rules and its groups'), or a branch an open merge request comes from or",
    'goes to. The question and --dry-run name the branches that go and those kept. The instance deletes them in the',
    'background. Needs the Developer role.',
  ].join(' '),
  examples: ['forgectl branches delete-merged --project acme/api --yes', 'forgectl branches delete-merged --project acme/api --dry-run'],
  options: [projectOption],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const { deleted, kept } = await mergedBranches(ctx, project);
    if (!deleted.length) {
      ctx.io.note(`No merged branches to delete in project ${project}${keptWords(kept)}`);
      return undefined;
    }
    const what = `${deleted.length === 1 ? 'the merged branch' : plural(deleted.length, 'merged branch', 'merged branches')} of project ${project} (${deleted.join(', ')})`;
    await ctx.confirm(`Delete ${what}${keptWords(kept)}?`);
    if (ctx.globals.dryRun) ctx.io.note(`would delete ${what}${keptWords(kept)}`);
    await ctx.api.call(branches.routes.deleteMerged, { project });
    if (!ctx.globals.dryRun) ctx.io.note(`Deleting ${what} in the background${keptWords(kept)}`);
    return undefined;
  },
});
