import { projects } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { plural } from '../../parse.js';
import { deleteAgreed } from './settings.js';
import { deletedArg, namedForDeletion } from '../../cli/options.js';

interface ProjectRecord {
  id: number;
  path_with_namespace: string;
  open_issues_count?: number;
  forks_count?: number;
  marked_for_deletion_on?: string | null;
  statistics?: { commit_count?: number; repository_size?: number; job_artifacts_size?: number };
}

/** What goes with a project, in words: "its repository (12 commits, 3.4 MB), 2 open issues". */
function contents(project: ProjectRecord): string {
  const parts: string[] = [];
  const stats = project.statistics;
  if (stats) parts.push(`its repository (${plural(stats.commit_count ?? 0, 'commit')}, ${((stats.repository_size ?? 0) / 1e6).toFixed(1)} MB)`);
  else parts.push('its repository');
  if (project.open_issues_count !== undefined) parts.push(plural(project.open_issues_count, 'open issue'));
  parts.push('and its merge requests, pipelines, artifacts, wiki and settings');
  return parts.join(', ');
}

export default defineCommand<{ project?: string; permanently?: boolean }>({
  effect: 'destructive',
  description: 'Deletes a project after saying what goes with it and asking (--yes off a terminal). Where the instance delays deletion (Premium and Ultimate, in groups) the project is marked and deleted after the instance\'s delay, and can be restored until then; --permanently deletes it now (a marked project only: it is marked first). Needs the Owner role.',
  examples: ['forgectl projects delete acme/web --yes', 'forgectl projects delete acme/web --permanently --yes'],
  args: [deletedArg('project')],
  options: [{ flags: '--permanently', description: 'delete now, not after the instance\'s deletion delay' }],
  async run(opts, ctx) {
    const given = namedForDeletion(opts.project, 'project');
    const project = await ctx.api.call<ProjectRecord>(projects.routes.get, { project: given, statistics: true });
    const path = project.path_with_namespace;
    await ctx.confirm(`Delete project ${path}${opts.permanently ? ' permanently' : ''}, with ${contents(project)}?`);
    await deleteAgreed(ctx, projects, project, path, opts.permanently);
    return undefined;
  },
});
