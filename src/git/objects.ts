import { createHash } from 'node:crypto';

/**
 * Git's object ids, computed as git computes them: sha1 over "<type> <size>\0<content>". The client uses the blob id
 * to skip unchanged files without downloading them; the sandbox uses all three to give commits and trees real ids.
 */

export type GitMode = '100644' | '100755' | '040000' | '160000' | '120000';

export interface GitTreeEntry {
  mode: GitMode;
  name: string;
  /** Blob, tree or (for a submodule) commit id. */
  id: string;
}

export interface GitSignature {
  name: string;
  email: string;
  /** ISO 8601. */
  date: string;
}

export interface GitCommitFields {
  tree: string;
  parents: string[];
  author: GitSignature;
  committer: GitSignature;
  message: string;
}

function objectId(type: 'blob' | 'tree' | 'commit', content: Uint8Array): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/** The id git gives a file's bytes (`git hash-object FILE`). */
export function gitBlobId(content: Uint8Array | string): string {
  return objectId('blob', typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
}

/** Git's order of tree entries: by name bytes, a directory compared as if its name ended in "/". */
export function sortTreeEntries(entries: GitTreeEntry[]): GitTreeEntry[] {
  const key = (e: GitTreeEntry): Buffer => Buffer.from(e.mode === '040000' ? `${e.name}/` : e.name, 'utf8');
  return [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
}

/** The id of a tree object: "<mode> <name>\0<20-byte id>" per entry, in git's order; directories as mode 40000. */
export function gitTreeId(entries: GitTreeEntry[]): string {
  const parts: Buffer[] = [];
  for (const entry of sortTreeEntries(entries)) {
    parts.push(Buffer.from(`${entry.mode === '040000' ? '40000' : entry.mode} ${entry.name}\0`, 'utf8'), Buffer.from(entry.id, 'hex'));
  }
  return objectId('tree', Buffer.concat(parts));
}

function signature(who: GitSignature): string {
  return `${who.name} <${who.email}> ${Math.floor(Date.parse(who.date) / 1000)} +0000`;
}

/** The text of a commit object (`git cat-file commit`); messages end with a newline as `git commit` leaves them. */
export function gitCommitText(commit: GitCommitFields): string {
  const lines = [`tree ${commit.tree}`, ...commit.parents.map((p) => `parent ${p}`), `author ${signature(commit.author)}`, `committer ${signature(commit.committer)}`];
  const message = commit.message.endsWith('\n') ? commit.message : `${commit.message}\n`;
  return `${lines.join('\n')}\n\n${message}`;
}

export function gitCommitId(commit: GitCommitFields): string {
  return objectId('commit', Buffer.from(gitCommitText(commit), 'utf8'));
}

/** A full object id: 40 hex characters (SHA-1 repositories) or 64 (SHA-256 repositories). */
export function isFullSha(value: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(value);
}
