import type { Db } from './db.js';
import { accepted, bool, errors, type SandboxRequest, type SandboxResponse } from './http.js';
import { descendantGroups } from './hierarchy.js';
import { groups, issues, members, mergeRequests, projects, repositories, type Group, type Project } from './model.js';

/** Deletion of projects and groups: delayed (a first DELETE marks them, restore takes the mark back), or at once. */

interface Deletable {
  marked_for_deletion_on?: string | null;
}

interface Deletion {
  noun: 'Project' | 'Group';
  /** What permanently_remove must be confirmed with (full_path). */
  fullPath: string;
  /** Whether this instance and object delay deletion (not on Free, not a personal project). */
  delays: boolean;
  deleteNow(): void;
}

/**
 * DELETE of a project or a group: where deletion is delayed, the first marks it for deletion; a second with
 * permanently_remove and its full path, or any where nothing is delayed, deletes it at once. Answers 202.
 */
export function deleteOrMark(req: SandboxRequest, target: Deletable, { noun, fullPath, delays, deleteNow }: Deletion): SandboxResponse {
  const permanently = bool(req.input.permanently_remove);
  if (permanently && req.input.full_path !== fullPath) {
    throw errors.badRequest(`\`full_path\` is incorrect. You must enter the complete path for the ${noun.toLowerCase()}.`);
  }
  if (delays && !(permanently && target.marked_for_deletion_on)) {
    if (target.marked_for_deletion_on) throw errors.badRequest(`${noun} has been already marked for deletion`);
    target.marked_for_deletion_on = req.now().toISOString().slice(0, 10);
    return accepted();
  }
  deleteNow();
  return accepted();
}

/** POST …/restore of a project or a group: takes back the mark (400 when there is none). */
export function unmarkDeletion(target: Deletable, noun: Deletion['noun']): void {
  if (!target.marked_for_deletion_on) throw errors.badRequest(`${noun} has not been marked for deletion`);
  target.marked_for_deletion_on = null;
}

/** Keeps the records of a table that `keep` accepts, in place (the table is the store's own array). */
export const keepWhere = <T>(table: T[], keep: (record: T) => boolean): void => void table.splice(0, table.length, ...table.filter(keep));

/** Removes a project and what only it holds (members, repository, merge requests, issues). */
export function deleteProjectNow(db: Db, project: Project): void {
  keepWhere(projects(db), (p) => p.id !== project.id);
  keepWhere(members(db), (m) => !(m.source_type === 'project' && m.source_id === project.id));
  keepWhere(repositories(db), (r) => r.project_id !== project.id);
  keepWhere(mergeRequests(db), (m) => m.project_id !== project.id);
  keepWhere(issues(db), (i) => i.project_id !== project.id);
}

/** Deletes a group with its subgroups and projects at once, and the shares of other groups and projects with them. */
export function deleteGroupNow(db: Db, group: Group): void {
  const doomed = [group, ...descendantGroups(db, group.id)];
  const ids = new Set(doomed.map((g) => g.id));
  for (const project of projects(db).filter((p) => ids.has(p.namespace_id))) deleteProjectNow(db, project);
  keepWhere(members(db), (m) => !(m.source_type === 'group' && ids.has(m.source_id)));
  keepWhere(groups(db), (g) => !ids.has(g.id));
  for (const other of groups(db)) other.shared_with_groups = other.shared_with_groups?.filter((l) => !ids.has(l.group_id));
  for (const project of projects(db)) project.shared_with_groups = project.shared_with_groups?.filter((l) => !ids.has(l.group_id));
}
