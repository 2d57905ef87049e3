import type { Db } from '../db.js';
import { gitBlobId, gitTreeId, sortTreeEntries, type GitMode, type GitTreeEntry } from '../../git/objects.js';

/**
 * The sandbox's git object store: blobs and trees under the ids git gives them, shared by every project (content
 * addressed, as in a fork network). Commits live in the `commits` table with their project. Stored in the Db so
 * `--state` persists it.
 */
type StoredObject = { type: 'blob'; data: string } | { type: 'tree'; entries: GitTreeEntry[] };

const objects = (db: Db): Record<string, StoredObject> => db.record('git_objects', () => ({}));

/** A file of a snapshot: a blob (regular, executable, symlink) or a submodule's commit. */
export interface SnapshotEntry {
  mode: GitMode;
  id: string;
}

/** A whole tree flattened: path → entry; directories are implied by the paths. */
export type Snapshot = Map<string, SnapshotEntry>;

export function putBlob(db: Db, content: Buffer): string {
  const id = gitBlobId(content);
  objects(db)[id] ??= { type: 'blob', data: content.toString('base64') };
  return id;
}

export function getBlob(db: Db, id: string): Buffer | undefined {
  const object = objects(db)[id];
  return object?.type === 'blob' ? Buffer.from(object.data, 'base64') : undefined;
}

/** A blob by a full or abbreviated (7+ characters) id. */
export function findBlobId(db: Db, sha: string): string | undefined {
  const store = objects(db);
  if (store[sha]?.type === 'blob') return sha;
  if (sha.length < 7 || !/^[0-9a-f]+$/i.test(sha)) return undefined;
  return Object.keys(store).find((id) => id.startsWith(sha.toLowerCase()) && store[id].type === 'blob');
}

export function getTree(db: Db, id: string): GitTreeEntry[] | undefined {
  const object = objects(db)[id];
  return object?.type === 'tree' ? object.entries : undefined;
}

/** Writes the trees of a snapshot bottom-up and returns the root tree's id. */
export function writeTree(db: Db, snapshot: Snapshot): string {
  const root: Dir = { files: [], dirs: new Map() };
  for (const [path, entry] of snapshot) {
    const parts = path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let child = dir.dirs.get(part);
      if (!child) dir.dirs.set(part, (child = { files: [], dirs: new Map() }));
      dir = child;
    }
    dir.files.push({ mode: entry.mode, name: parts[parts.length - 1], id: entry.id });
  }
  return storeDir(db, root);
}

interface Dir {
  files: GitTreeEntry[];
  dirs: Map<string, Dir>;
}

function storeDir(db: Db, dir: Dir): string {
  const entries: GitTreeEntry[] = [...dir.files];
  for (const [name, child] of dir.dirs) entries.push({ mode: '040000', name, id: storeDir(db, child) });
  const sorted = sortTreeEntries(entries);
  const id = gitTreeId(sorted);
  objects(db)[id] ??= { type: 'tree', entries: sorted };
  return id;
}

/** Every file of a tree, by path, in git's order. */
export function readSnapshot(db: Db, treeId: string, prefix = ''): Snapshot {
  const snapshot: Snapshot = new Map();
  for (const entry of getTree(db, treeId) ?? []) {
    const path = prefix + entry.name;
    if (entry.mode === '040000') for (const [p, e] of readSnapshot(db, entry.id, `${path}/`)) snapshot.set(p, e);
    else snapshot.set(path, { mode: entry.mode, id: entry.id });
  }
  return snapshot;
}

/** A tree entry with its path, as the tree listing shows it. */
export interface PathEntry extends GitTreeEntry {
  path: string;
}

/**
 * The entries under `path` of a tree (one level, or all levels in git's pre-order with `recursive`), or undefined
 * when the path is not a directory of the tree.
 */
export function listTree(db: Db, treeId: string, path: string, recursive: boolean): PathEntry[] | undefined {
  let id: string | undefined = treeId;
  const parts = path.split('/').filter(Boolean);
  for (const part of parts) {
    const entry: GitTreeEntry | undefined = getTree(db, id)?.find((e) => e.name === part);
    if (!entry || entry.mode !== '040000') return undefined;
    id = entry.id;
  }
  const prefix = parts.length ? `${parts.join('/')}/` : '';
  const out: PathEntry[] = [];
  const walk = (treeIdHere: string, base: string): void => {
    for (const entry of getTree(db, treeIdHere) ?? []) {
      out.push({ ...entry, path: base + entry.name });
      if (recursive && entry.mode === '040000') walk(entry.id, `${base}${entry.name}/`);
    }
  };
  walk(id, prefix);
  return out;
}

/** Git's heuristic: a NUL byte in the first 8000 bytes makes a file binary. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/** The entry at `path` of a tree (a file, submodule or directory), without reading the rest of the tree. */
export function entryAt(db: Db, treeId: string, path: string): GitTreeEntry | undefined {
  let entry: GitTreeEntry | undefined = { mode: '040000', name: '', id: treeId };
  for (const part of path.split('/').filter(Boolean)) {
    if (entry.mode !== '040000') return undefined;
    entry = getTree(db, entry.id)?.find((e) => e.name === part);
    if (!entry) return undefined;
  }
  return entry;
}
