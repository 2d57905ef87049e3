import { projectFor, projectRole, Role } from './auth.js';
import { repositoryOf, resolveRevision } from './git/repository.js';
import { errors, type SandboxRequest } from './http.js';
import type { Commit, Project } from './model.js';

/**
 * Reading a repository through the API: which projects' code the caller may read, the commit a ref names; the names
 * and searches of branches and tags.
 */

/**
 * A project whose code the caller may read: public and internal repositories are open (anonymous reads of public
 * ones too); a private one needs Reporter (guests cannot read code).
 */
export function readableProject(req: SandboxRequest): Project {
  const project = projectFor(req, Role.none);
  if (project.visibility === 'private' && projectRole(req.db, req.user, project) < Role.reporter) throw errors.forbidden();
  return project;
}

/** The commit of a ref (default: the default branch's head), or 404 with the given text. */
export function commitOf(req: SandboxRequest, project: Project, ref: unknown, notFound: string): Commit {
  const commit = resolveRevision(req.db, project, ref === undefined || ref === '' ? project.default_branch : String(ref));
  if (!commit) throw errors.notFound(notFound);
  return commit;
}

/** The commit id a branch or tag the route names points at, or 404 "Branch Not Found" / "Tag Not Found". */
export function refTarget(req: SandboxRequest, project: Project, kind: 'branch' | 'tag', name: string): string {
  const repository = repositoryOf(req.db, project.id);
  const sha = kind === 'branch' ? repository.branches[name] : repository.tags[name];
  if (!sha) throw errors.notFound(kind === 'branch' ? 'Branch' : 'Tag');
  return sha;
}

/** A protected branch or tag only Maintainers and Owners delete (the service's pre-receive check, answered as 400). */
export function refuseProtectedDeletion(req: SandboxRequest, project: Project, kind: 'branch' | 'tag', isProtected: boolean): void {
  if (!isProtected || projectRole(req.db, req.user, project) >= Role.maintainer) return;
  const plural = kind === 'branch' ? 'branches' : 'tags';
  throw errors.message(400, `You are not allowed to delete protected ${plural} from this project. Only a project maintainer or owner can delete a protected ${kind}.`);
}

/** The commit a new branch or tag starts from, or 400 with the given text. */
export function startCommit(req: SandboxRequest, project: Project, ref: string, message: string): Commit {
  const commit = resolveRevision(req.db, project, ref);
  if (!commit) throw errors.message(400, message);
  return commit;
}

/** Whether git would take this as a branch or tag name (git check-ref-format). */
export function validRefName(name: string): boolean {
  if (!name || name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if ([...name].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return false;
  if (/[~^:?*[\\]|\.\.|@\{|\/\/|\.lock(\/|$)|(^|\/)\./.test(name)) return false;
  return true;
}

/** A ref list's `search`: names containing the text; `^text` starting with it, `text$` ending with it (case-insensitive). */
export function searchedRefs(names: string[], search: unknown): string[] {
  if (search === undefined || search === '') return names;
  const text = String(search).toLowerCase();
  const starts = text.startsWith('^');
  const ends = text.endsWith('$');
  const core = text.slice(starts ? 1 : 0, ends ? -1 : undefined);
  return names.filter((name) => {
    const lower = name.toLowerCase();
    if (starts && ends) return lower === core;
    if (starts) return lower.startsWith(core);
    if (ends) return lower.endsWith(core);
    return lower.includes(core);
  });
}
