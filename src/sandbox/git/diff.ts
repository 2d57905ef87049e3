import { structuredPatch } from 'diff';
import type { FileDiff as ApiFileDiff } from '../../resources/repository/resource.js';
import type { Db } from '../db.js';
import { getBlob, isBinary, type Snapshot, type SnapshotEntry } from './store.js';

/** One file's change between two trees, in the service's diff shape, with its line counts. */
export interface FileDiff extends ApiFileDiff {
  too_large: boolean;
  additions: number;
  deletions: number;
}

/** Above this many changed lines a file's diff string is emptied, as the service does when its diff limits are hit. */
const MAX_DIFF_LINES = 5000;

/** Changes from `before` to `after`, by path; an exact move (same blob) is one rename. */
export function diffSnapshots(db: Db, before: Snapshot, after: Snapshot, options: { unidiff?: boolean } = {}): FileDiff[] {
  const deleted = [...before.keys()].filter((path) => !after.has(path));
  const added = [...after.keys()].filter((path) => !before.has(path));
  const renames = new Map<string, string>();
  for (const to of added) {
    const from = deleted.find((path) => !renames.has(path) && before.get(path)!.id === after.get(to)!.id);
    if (from) renames.set(from, to);
  }
  const out: FileDiff[] = [];
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const renamedTo = new Set(renames.values());
  for (const path of paths) {
    if (renamedTo.has(path)) continue;
    const a = before.get(path);
    const b = renames.has(path) ? after.get(renames.get(path)!) : after.get(path);
    const newPath = renames.get(path) ?? path;
    if (a && b && a.id === b.id && a.mode === b.mode && newPath === path) continue;
    out.push(fileDiff(db, path, newPath, a, b, options.unidiff ?? false));
  }
  return out;
}

function fileDiff(db: Db, oldPath: string, newPath: string, a: SnapshotEntry | undefined, b: SnapshotEntry | undefined, unidiff: boolean): FileDiff {
  const record: FileDiff = {
    old_path: oldPath,
    new_path: newPath,
    a_mode: a?.mode === '040000' ? '040000' : (a?.mode ?? '0'),
    b_mode: b?.mode ?? '0',
    diff: '',
    new_file: !a,
    renamed_file: Boolean(a && b && oldPath !== newPath),
    deleted_file: !b,
    too_large: false,
    additions: 0,
    deletions: 0,
  };
  if (a && b && a.id === b.id) return record;
  const oldText = content(db, a);
  const newText = content(db, b);
  if (oldText === undefined || newText === undefined) {
    record.diff = `Binary files ${a ? `a/${oldPath}` : '/dev/null'} and ${b ? `b/${newPath}` : '/dev/null'} differ\n`;
    return record;
  }
  const patch = structuredPatch(oldPath, newPath, oldText, newText, undefined, undefined, { context: 3 });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`, ...hunk.lines);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) record.additions++;
      else if (line.startsWith('-')) record.deletions++;
    }
  }
  if (record.additions + record.deletions > MAX_DIFF_LINES) {
    record.too_large = true;
    return record;
  }
  const header = unidiff ? `--- ${a ? `a/${oldPath}` : '/dev/null'}\n+++ ${b ? `b/${newPath}` : '/dev/null'}\n` : '';
  record.diff = lines.length ? `${header}${lines.join('\n')}\n` : '';
  return record;
}

/** Git writes a one-line range without its count, and an empty range as the line before it ("0,0" for a new file). */
function range(start: number, count: number): string {
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? String(start) : `${start},${count}`;
}

/** A file's text, a submodule's "Subproject commit" line, or undefined for binary content. */
function content(db: Db, entry: SnapshotEntry | undefined): string | undefined {
  if (!entry) return '';
  if (entry.mode === '160000') return `Subproject commit ${entry.id}\n`;
  const data = getBlob(db, entry.id) ?? Buffer.alloc(0);
  return isBinary(data) ? undefined : data.toString('utf8');
}

/** Lines added and removed by a change, for commit stats. */
export function diffStats(diffs: FileDiff[]): { additions: number; deletions: number; total: number } {
  const additions = diffs.reduce((n, d) => n + d.additions, 0);
  const deletions = diffs.reduce((n, d) => n + d.deletions, 0);
  return { additions, deletions, total: additions + deletions };
}
