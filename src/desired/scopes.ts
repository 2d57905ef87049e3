import { projects } from '../resources/projects/resource.js';
import { groups } from '../resources/groups/resource.js';
import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import { globRoot, isGlob, matchesGlob } from '../fleet/glob.js';
import { selectProjects, type SelectContext } from '../fleet/select.js';
import type { DesiredState, Scope } from './file.js';
import { isSecretRef, type Owner } from './model.js';

/**
 * Scopes and inheritance: which scopes of the file apply to a project or group, and what they declare together.
 * `*` applies to everything of the target, `group/**` to a group and its subgroups, a full path to that one;
 * deeper scopes override less deep ones (records merge key by key, lists and null replace), a later scope of the
 * same depth overrides an earlier one, and `inherit: false` cuts off everything less specific.
 */

/** How specific a pattern is: "*" least, then by its literal leading segments, an exact path most. */
export function specificity(pattern: string): number {
  if (pattern === '*') return 0;
  const segments = pattern.split('/');
  const literal = segments.findIndex(isGlob);
  return literal < 0 ? 1000 + segments.length : literal;
}

export function scopeApplies(pattern: string, path: string): boolean {
  if (pattern === '*') return true;
  return isGlob(pattern) ? matchesGlob(path, pattern) : pattern.toLowerCase() === path.toLowerCase();
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !isSecretRef(value);

/** Records merge key by key; lists, null and secret references replace. */
export function mergeValues(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isRecord(base) || !isRecord(over)) return over;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = mergeValues(base[key], value);
  return merged;
}

/** What the scopes that apply to `path` declare together, section by section. */
export function effectiveSections(scopes: Scope[], path: string): Record<string, unknown> {
  const applying = scopes.filter((scope) => scopeApplies(scope.pattern, path)).sort((a, b) => specificity(a.pattern) - specificity(b.pattern) || a.order - b.order);
  const cut = applying.map((scope) => scope.inherit).lastIndexOf(false);
  let sections: Record<string, unknown> = {};
  for (const scope of applying.slice(Math.max(0, cut))) sections = mergeValues(sections, scope.sections) as Record<string, unknown>;
  return sections;
}

/**
 * The projects a plan covers: those of the targets (--target, else the file's `target`, else what its scopes
 * name), without those --exclude names, archived ones left out (they cannot be changed). By full path.
 */
export async function targetProjects(ctx: SelectContext, state: DesiredState, targets: string[], exclude: string[]): Promise<Owner[]> {
  const patterns = targets.length ? targets : state.target.length ? state.target : state.projects.map((scope) => scope.pattern).filter((pattern) => pattern !== '*');
  if (!patterns.length) {
    if (!state.projects.length) return [];
    throw new UsageError('"*" needs a target: which projects does it mean?', 'give --target GROUP/** (or a full project path), or add target: GROUP/** to the file');
  }
  const found = new Map<string, Owner>();
  for (const pattern of new Set(patterns)) {
    if (pattern === '*') throw new UsageError('a target cannot be "*"', 'name the group: --target GROUP/**');
    if (!isGlob(pattern)) {
      // An excluded path is not read: --exclude is how a run leaves out a project that is missing here.
      if (excluded(pattern, exclude)) continue;
      const project = await ctx.api.call<{ id: number; path_with_namespace: string; default_branch?: string | null; archived?: boolean }>(projects.routes.get, { project: pattern }).catch(notFoundAs('project', pattern, targets.length ? 'a --target' : 'named in the file'));
      if (!project.archived) found.set(project.path_with_namespace, { level: 'project', path: project.path_with_namespace, id: project.id, defaultBranch: project.default_branch ?? undefined });
      continue;
    }
    const root = globRoot(pattern);
    if (!root) throw new UsageError(`target ${pattern} must start with a group path`, 'for example acme/** or acme/*/api');
    for (const project of await selectProjects(ctx, { group: root, recursive: true, match: [pattern] })) {
      found.set(project.path, { level: 'project', path: project.path, id: project.id, defaultBranch: project.defaultBranch });
    }
  }
  return [...found.values()].filter((owner) => !excluded(owner.path, exclude)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const excluded = (path: string, exclude: string[]): boolean => exclude.some((glob) => matchesGlob(path, glob));

/** A 404 for a project or group the file or a --target names, said as such (exit 5); other errors as they are. */
function notFoundAs(level: 'project' | 'group', path: string, namedBy: 'named in the file' | 'a --target' | 'the root of a pattern'): (error: unknown) => never {
  const hint = namedBy === 'named in the file' ? `leave it out of this run with --exclude ${path}` : undefined;
  return (error) => {
    if (error instanceof ApiError && error.status === 404) throw new CliError(`${level} ${path}, ${namedBy}, does not exist (or you cannot see it)`, ExitCode.notFound, hint);
    throw error;
  };
}

interface GroupRecord {
  id: number;
  full_path: string;
}

/** The groups a plan covers: those the group scopes name (exact paths, or globs and "*" within the targets' groups). */
export async function targetGroups(ctx: SelectContext, state: DesiredState, targets: string[], exclude: string[]): Promise<Owner[]> {
  if (!state.groups.length) return [];
  const roots = new Set<string>();
  const exact = new Set<string>();
  const patterns = state.groups.map((scope) => scope.pattern);
  for (const pattern of patterns) {
    if (pattern === '*') for (const target of targets.length ? targets : state.target) roots.add(globRoot(target));
    else if (isGlob(pattern)) roots.add(globRoot(pattern));
    else exact.add(pattern);
  }
  if (patterns.includes('*') && !roots.size) throw new UsageError('"*" under groups needs a target', 'give --target GROUP/**, or add target: GROUP/** to the file');
  const found = new Map<string, Owner>();
  const add = (group: GroupRecord) => void found.set(group.full_path, { level: 'group', path: group.full_path, id: group.id });
  const applies = (path: string) => patterns.some((pattern) => pattern === '*' || scopeApplies(pattern, path));
  const inTargets = (path: string) => !targets.length || targets.some((target) => matchesGlob(path, target) || globRoot(target).toLowerCase() === path.toLowerCase() || scopeApplies(target, path));
  // A group named by its path is read only when the run covers it (--target, --exclude).
  for (const path of exact) if (inTargets(path) && !excluded(path, exclude)) add(await ctx.api.call<GroupRecord>(groups.routes.get, { group: path }).catch(notFoundAs('group', path, 'named in the file')));
  for (const root of roots) {
    if (!root) continue;
    add(await ctx.api.call<GroupRecord>(groups.routes.get, { group: root }).catch(notFoundAs('group', root, 'the root of a pattern')));
    for await (const group of ctx.api.list<GroupRecord>(groups.routes.descendants, { group: root }, { all: true })) add(group);
  }
  return [...found.values()]
    .filter((owner) => applies(owner.path) && inTargets(owner.path) && !excluded(owner.path, exclude))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
