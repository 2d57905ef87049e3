import { p } from './path.js';

/** Paths of the review workflow: merge trains, approvals and notes (approval rules and draft notes are declared in resources/). */

export const mergeRequestPath = (project: string, iid: number): string => p`/projects/${project}/merge_requests/${iid}`;

export const mergeTrainsPath = (project: string, targetBranch?: string): string =>
  targetBranch === undefined ? p`/projects/${project}/merge_trains` : p`/projects/${project}/merge_trains/${targetBranch}`;
export const mergeTrainEntryPath = (project: string, iid: number): string => p`/projects/${project}/merge_trains/merge_requests/${iid}`;
/** What a note hangs on: an issue (by IID), a project snippet (by ID) or a merge request (by IID). */
export type Noteable = { kind: 'issue'; iid: number } | { kind: 'snippet'; id: number } | { kind: 'merge_request'; iid: number };

export function notesPath(project: string, noteable: Noteable): string {
  if (noteable.kind === 'issue') return p`/projects/${project}/issues/${noteable.iid}/notes`;
  if (noteable.kind === 'snippet') return p`/projects/${project}/snippets/${noteable.id}/notes`;
  return p`/projects/${project}/merge_requests/${noteable.iid}/notes`;
}

export function describeNoteable(noteable: Noteable): string {
  if (noteable.kind === 'issue') return `issue #${noteable.iid}`;
  if (noteable.kind === 'snippet') return `snippet $${noteable.id}`;
  return `merge request !${noteable.iid}`;
}

/** The service's limit on the text of a note or draft note. */
export const MAX_NOTE_CHARS = 1_000_000;

/** Characters as the service counts them (code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}
