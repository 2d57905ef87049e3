import { projects } from '../projects/resource.js';
import { runners } from './resource.js';
import { routeOf } from '../../api/resource.js';
import { defineCommand, type CommandDef } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { ApiError, CliError, ExitCode } from '../../errors.js';
import { explained } from '../members/shared.js';
import { byId, describeRunner, runnerId, runnerIdArg, runnerOwners, type RunnerOwners } from './shared.js';

/**
 * A project runner shared with more projects: `assign` lets another project use it, `unassign` takes it from one of
 * its projects (never from its last one: the service refuses, and `runners delete` is what removes it).
 */

const { assign: assignRoute, unassign: unassignRoute } = runners.parents.project.routes;
/** What to do about the service's 403, by its reason. */
function refusal(error: unknown, id: number): unknown {
  const reason = error instanceof ApiError ? error.message : '';
  if (/locked/i.test(reason)) return explained(error, { 403: `a locked runner stays with its projects (administrators excepted): unlock it first with forgectl runners update ${id} --no-locked` });
  if (/group runner/i.test(reason)) return explained(error, { 403: 'a group runner serves every project of its group already; only project runners are assigned' });
  return explained(error, { 403: 'it needs the Maintainer role of one of the runner\'s projects and of this one' });
}

interface Runner extends RunnerOwners {
  id: number;
  description: string;
  locked?: boolean;
}

const assign: CommandDef<{ id: string; project?: string }> = defineCommand({
  description: 'Lets the project use a project runner of another project (only project runners; a locked one only by administrators). Needs the Maintainer role of both projects.',
  effect: 'write',
  examples: ['forgectl runners assign 7 --project acme/web'],
  args: [runnerIdArg],
  options: [projectOption],
  async run(opts, ctx) {
    const runner_id = runnerId(opts.id);
    const project = ctx.project(opts.project);
    const runner = await ctx.api.call<Runner>(assignRoute, { project, runner_id }).catch((error: unknown) => {
      throw refusal(error, runner_id);
    });
    ctx.io.note(`Assigned ${describeRunner(runner)} to project ${project}`);
    return runner;
  },
});

const unassign: CommandDef<{ id: string; project?: string }> = defineCommand({
  description: 'Takes a project runner from one of its projects, after naming the projects it stays with and asking (--yes off a terminal). From its last project it cannot be taken: runners delete removes it. Needs the Maintainer role.',
  effect: 'destructive',
  examples: ['forgectl runners unassign 7 --project acme/web --yes'],
  args: [runnerIdArg],
  options: [projectOption],
  async run(opts, ctx) {
    const runner_id = runnerId(opts.id);
    const project = ctx.project(opts.project);
    const [runner, { path_with_namespace: path }] = await Promise.all([
      ctx.api.call<Runner>(routeOf(byId, 'get'), { runner_id }),
      ctx.api.call<{ path_with_namespace: string }>(projects.routes.get, { project }),
    ]);
    const owners = runnerOwners(runner);
    const others = owners.filter((owner) => owner !== path);
    if (runner.runner_type !== 'project_type' || (owners.length && others.length === owners.length)) {
      throw new CliError(`${describeRunner(runner)} is not assigned to project ${project}${owners.length ? ` (its projects: ${owners.join(', ')})` : ''}; nothing was sent`, ExitCode.notFound);
    }
    if (owners.length === 1) {
      throw new CliError(`project ${project} is the only project of ${describeRunner(runner)}: the service does not unassign a runner from its last project; nothing was sent`, ExitCode.auth, `to remove the runner: forgectl runners delete ${runner.id}`);
    }
    await ctx.confirm(`Unassign ${describeRunner(runner)} from project ${project}? It stays with ${others.join(', ') || 'its other projects'}`);
    await ctx.api.call(unassignRoute, { project, runner_id }).catch((error: unknown) => {
      throw refusal(error, runner_id);
    });
    ctx.io.note(`Unassigned ${describeRunner(runner)} from project ${project}`);
    return undefined;
  },
});

export default { assign, unassign };
