import type { Db } from '../db.js';
import { gitCommitId, type GitSignature } from '../../git/objects.js';
import { commits, repositories, type Commit, type Project, type Repository, type User } from '../model.js';
import { diffSnapshots, diffStats } from './diff.js';
import { entryAt, putBlob, readSnapshot, writeTree, type Snapshot } from './store.js';

/** Branches, tags and commits of a project's repository, with git's ids. */

export const ZERO_SHA = '0'.repeat(40);

/** The project's repository; a project without one (just created) gets an empty repository. */
export function repositoryOf(db: Db, projectId: number): Repository {
  let repository = repositories(db).find((r) => r.project_id === projectId);
  if (!repository) repositories(db).push((repository = { project_id: projectId, branches: {}, tags: {} }));
  return repository;
}

export function findCommit(db: Db, projectId: number, sha: string): Commit | undefined {
  const wanted = sha.toLowerCase();
  return commits(db).find((c) => c.project_id === projectId && (c.id === wanted || (wanted.length >= 7 && c.id.startsWith(wanted))));
}

/** A branch, tag, `refs/heads/…`, `refs/tags/…`, `HEAD` (the default branch) or a commit id, as a commit. */
export function resolveRevision(db: Db, project: Project, revision: string): Commit | undefined {
  // Ancestry suffixes, as git reads them (ref names cannot hold ~ or ^): main~2 (first parents), main^2 (second parent).
  const ancestry = /^(.+?)((?:[~^]\d*)+)$/.exec(revision);
  if (ancestry) {
    let commit = resolveRevision(db, project, ancestry[1]);
    for (const [, op, count] of ancestry[2].matchAll(/([~^])(\d*)/g)) {
      const n = count === '' ? 1 : Number(count);
      if (op === '~') for (let i = 0; i < n && commit; i++) commit = parentsOf(db, commit, true)[0];
      else if (n > 0 && commit) commit = parentsOf(db, commit)[n - 1];
    }
    return commit;
  }
  const repository = repositoryOf(db, project.id);
  const rev = revision === 'HEAD' ? project.default_branch : revision;
  const sha =
    repository.branches[rev.replace(/^refs\/heads\//, '')] ??
    repository.tags[rev.replace(/^refs\/tags\//, '')] ??
    (/^[0-9a-f]{4,64}$/i.test(rev) ? rev : undefined);
  return sha ? findCommit(db, project.id, sha) : undefined;
}

export function parentsOf(db: Db, commit: Commit, firstParent = false): Commit[] {
  const ids = firstParent ? commit.parent_ids.slice(0, 1) : commit.parent_ids;
  return ids.map((id) => findCommit(db, commit.project_id, id)).filter((c): c is Commit => c !== undefined);
}

/** Every commit reachable from `heads` (each once), newest first by commit date. */
export function reachable(db: Db, heads: Commit[], options: { firstParent?: boolean; order?: 'default' | 'topo' } = {}): Commit[] {
  const seen = new Set<string>();
  const out: Commit[] = [];
  const stack = [...heads];
  while (stack.length) {
    const commit = stack.pop()!;
    if (seen.has(commit.id)) continue;
    seen.add(commit.id);
    out.push(commit);
    stack.push(...parentsOf(db, commit, options.firstParent).reverse());
  }
  if (options.order === 'topo') return topoOrder(db, out, options.firstParent);
  return out.sort((a, b) => b.committed_date.localeCompare(a.committed_date));
}

/** Children before parents, each line of history kept together (git log --topo-order). */
function topoOrder(db: Db, list: Commit[], firstParent?: boolean): Commit[] {
  const children = new Map<string, number>();
  for (const c of list) for (const p of parentsOf(db, c, firstParent)) children.set(p.id, (children.get(p.id) ?? 0) + 1);
  const ready = list.filter((c) => !children.get(c.id)).sort((a, b) => a.committed_date.localeCompare(b.committed_date));
  const out: Commit[] = [];
  while (ready.length) {
    const commit = ready.pop()!;
    out.push(commit);
    for (const parent of parentsOf(db, commit, firstParent)) {
      const left = (children.get(parent.id) ?? 0) - 1;
      children.set(parent.id, left);
      if (left === 0) ready.push(parent);
    }
  }
  return out;
}

export function isAncestor(db: Db, ancestor: Commit, of: Commit): boolean {
  return reachable(db, [of]).some((c) => c.id === ancestor.id);
}

/** The best common ancestor of several commits (git merge-base): common, and not an ancestor of another such. */
export function mergeBase(db: Db, commitsToJoin: Commit[]): Commit | undefined {
  let common = reachable(db, [commitsToJoin[0]]);
  for (const other of commitsToJoin.slice(1)) {
    const ids = new Set(reachable(db, [other]).map((c) => c.id));
    common = common.filter((c) => ids.has(c.id));
  }
  const best = common.filter((c) => !common.some((d) => d.id !== c.id && isAncestor(db, c, d)));
  return best.sort((a, b) => b.committed_date.localeCompare(a.committed_date))[0];
}

export function snapshotOf(db: Db, commit: Commit | undefined): Snapshot {
  return commit ? readSnapshot(db, commit.tree) : new Map();
}

export interface NewCommit {
  parents: Commit[];
  snapshot: Snapshot;
  message: string;
  author: GitSignature;
  committer?: GitSignature;
}

/** Writes a commit (its trees, its id as git computes it, its stats against the first parent) into the project. */
export function writeCommit(db: Db, projectId: number, input: NewCommit): Commit {
  const tree = writeTree(db, input.snapshot);
  const committer = input.committer ?? input.author;
  const parentIds = input.parents.map((p) => p.id);
  const id = gitCommitId({ tree, parents: parentIds, author: input.author, committer, message: input.message });
  const existing = findCommit(db, projectId, id);
  if (existing) return existing;
  const stats = diffStats(diffSnapshots(db, snapshotOf(db, input.parents[0]), input.snapshot));
  const commit: Commit = {
    id,
    project_id: projectId,
    tree,
    parent_ids: parentIds,
    title: input.message.split('\n')[0],
    message: input.message,
    author_name: input.author.name,
    author_email: input.author.email,
    authored_date: input.author.date,
    committer_name: committer.name,
    committer_email: committer.email,
    committed_date: committer.date,
    stats,
  };
  commits(db).push(commit);
  return commit;
}

/**
 * A branch or tag moved: what the service reports to push hooks. `commits` are the commits the push added, oldest
 * first; `before` is ZERO_SHA for a new branch, `after` ZERO_SHA for a deleted one.
 */
export interface PushEvent {
  project: Project;
  /** Full ref name: refs/heads/main, refs/tags/v1.0.0. */
  ref: string;
  branch?: string;
  tag?: string;
  before: string;
  after: string;
  commits: Commit[];
  user?: User;
  at: Date;
}

/** Moves a branch (creating it when new) and describes the push; the caller hands it to the sandbox's push listeners. */
export function moveBranch(db: Db, project: Project, branch: string, to: Commit, user: User | undefined, at: Date): PushEvent {
  const repository = repositoryOf(db, project.id);
  const before = repository.branches[branch] ?? ZERO_SHA;
  const old = before === ZERO_SHA ? undefined : findCommit(db, project.id, before);
  const known = new Set(old ? reachable(db, [old]).map((c) => c.id) : []);
  const added = reachable(db, [to]).filter((c) => !known.has(c.id)).reverse();
  repository.branches[branch] = to.id;
  return { project, ref: `refs/heads/${branch}`, branch, before, after: to.id, commits: added, user, at };
}

/** Seeds a commit from a map of changes (path → content, or null to delete; "base64:" and mode prefixes allowed). */
export function seedCommit(db: Db, projectId: number, parent: Commit | undefined, message: string, changes: Record<string, SeedContent | null>, date: Date, author: { name: string; email: string } = { name: 'Administrator', email: 'root@example.com' }): Commit {
  const snapshot = snapshotOf(db, parent);
  for (const [path, content] of Object.entries(changes)) {
    if (content === null) snapshot.delete(path);
    else if (typeof content === 'string') snapshot.set(path, { mode: '100644', id: putBlob(db, Buffer.from(content)) });
    else if ('submodule' in content) snapshot.set(path, { mode: '160000', id: content.submodule });
    else snapshot.set(path, { mode: content.executable ? '100755' : '100644', id: putBlob(db, content.data) });
  }
  const signature = { ...author, date: date.toISOString() };
  return writeCommit(db, projectId, { parents: parent ? [parent] : [], snapshot, message, author: signature });
}

export type SeedContent = string | { data: Buffer; executable?: boolean } | { submodule: string };

/** The newest commit of `head`'s first-parent history that changed `path` (the file's last_commit_id). */
export function lastCommitFor(db: Db, head: Commit, path: string): Commit {
  const at = (c: Commit): string => {
    const entry = entryAt(db, c.tree, path);
    return entry ? `${entry.mode} ${entry.id}` : '';
  };
  let current = head;
  const value = at(head);
  for (;;) {
    const parent = parentsOf(db, current, true)[0];
    if (!parent || at(parent) !== value) return current;
    current = parent;
  }
}
