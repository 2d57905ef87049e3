import { placed, routeOf } from '../../api/resource.js';
import type { Context } from '../../cli/command.js';
import { ApiError } from '../../errors.js';
import { groups } from '../groups/resource.js';
import { projects } from '../projects/resource.js';
import { variables, type Variable } from './resource.js';
import { forEnvironment, route, type Target } from './shared.js';

/**
 * What a job in an environment gets, as the service decides it: the instance's variables, then those of each group
 * from the top down to the nearest one, then the project's (or the group's own, for a group), a later level winning
 * for a key, and within each level the most specific environment scope. A level the caller may not read (instance
 * variables: administrators only; a group's: its Maintainers) is named on stderr as not included.
 */

interface Level {
  where: string;
  read: () => Promise<Variable[]>;
}

/** The full paths of the groups above a namespace, top down, the namespace itself last: acme, acme/platform. */
const groupChain = (fullPath: string): string[] => fullPath.split('/').map((_, index, parts) => parts.slice(0, index + 1).join('/'));

const listed = (ctx: Context, level: 'instance' | 'group', params: Record<string, unknown>): Promise<Variable[]> =>
  ctx.api.list<Variable>(routeOf(placed(variables, level), 'list'), params, { all: true }).toArray();

/** Every variable of the target itself (every page). */
export const allOf = (ctx: Context, target: Target): Promise<Variable[]> => ctx.api.list<Variable>(route(target, 'list'), target.params, { all: true }).toArray();

/** The groups above the target, top down. */
async function groupsAbove(ctx: Context, target: Target): Promise<string[]> {
  if (target.params.project !== undefined) {
    const project = await ctx.api.call<{ namespace: { kind: string; full_path: string } }>(projects.routes.get, { project: target.params.project });
    return project.namespace.kind === 'group' ? groupChain(project.namespace.full_path) : [];
  }
  const group = await ctx.api.call<{ full_path: string }>(groups.routes.get, { group: target.params.group, with_projects: false });
  return groupChain(group.full_path).slice(0, -1);
}

/** The levels a job's variables come from, lowest precedence first, the target's own last. */
async function levelsOf(ctx: Context, target: Target): Promise<Level[]> {
  const above = await groupsAbove(ctx, target);
  return [
    { where: 'the instance', read: () => listed(ctx, 'instance', {}) },
    ...above.map((path) => ({ where: `group ${path}`, read: () => listed(ctx, 'group', { group: path }) })),
    { where: target.where, read: () => allOf(ctx, target) },
  ];
}

/** Reads a level above the target; a level the caller may not read is undefined. */
async function readable(level: Level): Promise<Variable[] | undefined> {
  try {
    return await level.read();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403 || error.status === 404)) return undefined;
    throw error;
  }
}

/** The variables a job in `environment` gets, with the levels read and those left out (not readable by the caller). */
export async function inheritedFor(ctx: Context, target: Target, environment: string): Promise<{ variables: Variable[]; read: string[] }> {
  const levels = await levelsOf(ctx, target);
  const byKey = new Map<string, Variable>();
  const read: string[] = [];
  for (const [index, level] of levels.entries()) {
    const found = index === levels.length - 1 ? await level.read() : await readable(level);
    if (!found) {
      ctx.io.note(`not included: the variables of ${level.where} (${level.where === 'the instance' ? 'only administrators may read them' : 'reading them needs the Maintainer role there'}); a job there gets them too`);
      continue;
    }
    read.push(level.where);
    for (const variable of forEnvironment(found, environment)) {
      byKey.delete(variable.key);
      byKey.set(variable.key, variable);
    }
  }
  return { variables: [...byKey.values()], read };
}
