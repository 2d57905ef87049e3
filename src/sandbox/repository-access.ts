import { projectFor, projectRole, Role } from './auth.js';
import { resolveRevision } from './git/repository.js';
import { errors, type SandboxRequest } from './http.js';
import type { Commit, Project } from './model.js';

/** Reading a repository through the API: which projects' code the caller may read, and the commit a ref names. */

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
