import { assertBranchUnmoved, branchExists, branchTree, commitGuarded, fileActions, guardActions, type FileContent } from '../../api/commit-actions.js';
import { commits } from '../commits/resource.js';
import { UsageError } from '../../errors.js';
import { repoPath } from '../../git/content.js';
import { gitBlobId } from '../../git/objects.js';
import type { Change, Owner } from '../../desired/model.js';
import { refuse, type Section } from '../../desired/section.js';

/**
 * Repository files: content a project's branch must hold, from a local file (`source`, relative to the
 * desired-state file) or given inline (`content`). Unchanged files are found by git's blob id without downloading
 * anything, and every change to one branch of one project goes in one commit through the commits API.
 */

type Values = Record<string, unknown>;

export const DEFAULT_COMMIT_MESSAGE = 'Update files from the desired state (forgectl)';

/** The bytes an entry declares: its source file's, or its inline content. */
function bytesOf(values: Values, read: (path: string) => Buffer): Buffer {
  return typeof values.source === 'string' ? read(values.source) : Buffer.from(String(values.content ?? ''), 'utf8');
}

/** The bytes of an entry, refused when they are not those the plan compared. */
function plannedBytes(io: { readLocal(path: string): Buffer }, entry: Values): Buffer {
  const bytes = bytesOf(entry, (p) => io.readLocal(p));
  if (gitBlobId(bytes) !== entry.blob_id) refuse(`the source of ${String(entry.path)}`, 'changed after the plan was made', 'make the plan again');
  return bytes;
}

const branchOf = (values: Values, owner: Owner): string => (typeof values.branch === 'string' ? values.branch : (owner.defaultBranch ?? 'main'));

/** Entries by branch, in the file's order. */
function byBranch(entries: Values[], owner: Owner): Map<string, Values[]> {
  const branches = new Map<string, Values[]>();
  for (const entry of entries) {
    const branch = branchOf(entry, owner);
    branches.set(branch, [...(branches.get(branch) ?? []), entry]);
  }
  return branches;
}

const short = (id: string | undefined): string | null => (id ? id.slice(0, 12) : null);

export const filesSection: Section = {
  key: 'files',
  noun: 'file',
  level: 'project',
  shape: 'many',
  help: 'Repository files: `path` on `branch` (default: the default branch) holds the bytes of `source` (a local file, relative to this file) or `content`. Changes to one branch go in one commit (commit_message). Unchanged files are found by their git blob id, without downloading them.',
  fields: {
    path: { schema: { type: 'string', minLength: 1 }, help: 'the path in the repository' },
    source: { schema: { type: 'string', minLength: 1 }, help: 'a local file with the content, relative to this file' },
    content: { schema: { type: 'string' }, help: 'the content itself' },
    branch: { schema: { type: 'string', minLength: 1 }, help: 'the branch (default: the project\'s default branch)' },
    commit_message: { schema: { type: 'string', minLength: 1 }, help: `the message of the commit (default: "${DEFAULT_COMMIT_MESSAGE}")` },
  },
  identity: ['branch', 'path'],
  required: ['path'],
  exported: false,
  check(values, local) {
    if ((values.source === undefined) === (values.content === undefined)) refuse(`file ${String(values.path)}`, 'needs either source or content');
    let path: string;
    try {
      path = repoPath(String(values.path), 'path');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const bytes = bytesOf(values, (p) => local.read(p));
    return { ...values, path, blob_id: gitBlobId(bytes) };
  },
  async read() {
    return [];
  },
  async plan(io, owner, desired) {
    const entries = desired as Values[];
    const changes: Change[] = [];
    for (const [branch, items] of byBranch(entries, owner)) {
      const messages = new Set(items.map((item) => item.commit_message).filter((m) => m !== undefined));
      if (messages.size > 1) throw new UsageError(`files of ${owner.path} on branch ${branch} ask for different commit messages; they go in one commit, so give one message`);
      // The branch's one commit message, whichever of its files names it.
      const message = [...messages][0] ?? DEFAULT_COMMIT_MESSAGE;
      const tree = await branchTree(io.api, target(owner, branch));
      for (const item of items) {
        const current = tree.get(String(item.path));
        if (current && current.type !== 'blob') throw new UsageError(`${String(item.path)} is a ${current.type === 'tree' ? 'folder' : 'submodule'} on ${branch} of ${owner.path}, not a file`);
        if (current?.id === item.blob_id) continue;
        changes.push({
          owner,
          section: 'files',
          key: `${branch}:${String(item.path)}`,
          action: current ? 'update' : 'create',
          fields: [{ field: 'blob', from: short(current?.id), to: short(String(item.blob_id)) }],
          desired: { ...item, branch, commit_message: message },
          digest: current?.id ?? '',
        });
      }
    }
    return changes;
  },
  // Before the run's first write: every source is still what the plan compared.
  async prepare(io, change) {
    plannedBytes(io, change.desired ?? {});
  },
  // A saved change follows from the file when it writes the bytes an entry of the file gives, with the branch's message.
  follows(declared, change) {
    const desired = change.desired ?? {};
    const entries = (declared as Values[]).filter((entry) => `${branchOf(entry, change.owner)}:${String(entry.path)}` === change.key);
    const entry = entries[0];
    if (!entry) return 'the file does not list it';
    if (desired.path !== entry.path || desired.branch !== branchOf(entry, change.owner) || desired.blob_id !== entry.blob_id || desired.source !== entry.source || desired.content !== entry.content) return 'the content it would commit is not the one the file declares';
    const messages = (declared as Values[]).filter((other) => branchOf(other, change.owner) === desired.branch).map((other) => String(other.commit_message ?? DEFAULT_COMMIT_MESSAGE));
    return messages.includes(String(desired.commit_message)) ? undefined : 'its commit message is not one the file gives';
  },
  async applyAll(io, owner, changes) {
    const items = changes.map((change) => change.desired!);
    for (const [branch, entries] of byBranch(items, owner)) {
      const files: FileContent[] = entries.map((entry) => ({ path: String(entry.path), bytes: plannedBytes(io, entry) }));
      const to = target(owner, branch);
      const tree = await branchTree(io.api, to);
      const actions = fileActions(tree, files);
      if (!actions.length) continue;
      await guardActions(io.api, to, tree, actions);
      await assertBranchUnmoved(io.api, to, tree, actions);
      const message = String(entries[0].commit_message ?? DEFAULT_COMMIT_MESSAGE);
      const startBranch = to.startBranch && !(await branchExists(io.api, owner.path, branch)) ? to.startBranch : undefined;
      await commitGuarded(io.api, to, tree, actions, () => io.api.call(commits.routes.create, { project: owner.path, branch, commit_message: message, actions, start_branch: startBranch }));
    }
  },
};

/** A branch other than the default one starts from the default branch when it does not exist yet. */
function target(owner: Owner, branch: string): { project: string; branch: string; startBranch?: string } {
  return { project: owner.path, branch, startBranch: owner.defaultBranch && branch !== owner.defaultBranch ? owner.defaultBranch : undefined };
}
