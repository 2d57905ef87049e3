import { p } from './path.js';

/** Paths of the review workflow: approvals and notes (merge trains, approval rules and draft notes are declared in resources/). */

export const mergeRequestPath = (project: string, iid: number): string => p`/projects/${project}/merge_requests/${iid}`;
/** The service's limit on the text of a note or draft note. */
export const MAX_NOTE_CHARS = 1_000_000;

/** Characters as the service counts them (code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}
