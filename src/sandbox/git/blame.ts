import { diffArrays } from 'diff';
import type { Db } from '../db.js';
import type { Commit } from '../model.js';
import { parentsOf } from './repository.js';
import { entryAt, getBlob } from './store.js';

function linesAt(db: Db, commit: Commit, path: string): string[] | undefined {
  const entry = entryAt(db, commit.tree, path);
  if (!entry || entry.mode === '040000' || entry.mode === '160000') return undefined;
  const text = (getBlob(db, entry.id) ?? Buffer.alloc(0)).toString('utf8');
  if (!text) return [];
  return text.replace(/\n$/, '').split('\n');
}

/**
 * Which commit last changed each line (git blame along first parents): lines unchanged from the parent pass to the
 * parent; the others belong to the commit. Returns runs of consecutive lines with the same commit.
 */
export function blame(db: Db, head: Commit, path: string): Array<{ commit: Commit; lines: string[]; start: number }> | undefined {
  const lines = linesAt(db, head, path);
  if (!lines) return undefined;
  const owner: Commit[] = new Array(lines.length);
  // Lines still to attribute: index in `commit`'s version → index in the head's version.
  let pending = new Map(lines.map((_, i) => [i, i]));
  let commit = head;
  let current = lines;
  while (pending.size) {
    const parent = parentsOf(db, commit, true)[0];
    const older = parent ? linesAt(db, parent, path) : undefined;
    if (!parent || !older) {
      for (const headIndex of pending.values()) owner[headIndex] = commit;
      break;
    }
    const next = new Map<number, number>();
    let oldIndex = 0;
    let newIndex = 0;
    for (const part of diffArrays(older, current)) {
      const count = part.value.length;
      for (let k = 0; k < count; k++) {
        if (part.added) {
          const headIndex = pending.get(newIndex);
          if (headIndex !== undefined) owner[headIndex] = commit;
          newIndex++;
        } else if (part.removed) {
          oldIndex++;
        } else {
          const headIndex = pending.get(newIndex);
          if (headIndex !== undefined) next.set(oldIndex, headIndex);
          oldIndex++;
          newIndex++;
        }
      }
    }
    pending = next;
    commit = parent;
    current = older;
  }
  const runs: Array<{ commit: Commit; lines: string[]; start: number }> = [];
  lines.forEach((line, i) => {
    const last = runs[runs.length - 1];
    if (last && last.commit.id === owner[i].id) last.lines.push(line);
    else runs.push({ commit: owner[i], lines: [line], start: i + 1 });
  });
  return runs;
}
