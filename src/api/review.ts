/** Limits of the review workflow (its routes are declared in resources/: approvals, notes, draft notes, merge trains). */

/** The service's limit on the text of a note or draft note. */
export const MAX_NOTE_CHARS = 1_000_000;

/** Characters as the service counts them (code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}
