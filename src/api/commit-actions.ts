import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import { encodeContent } from '../git/content.js';
import { gitBlobId } from '../git/objects.js';
import type { Api } from './client.js';
import { commits, type CommitAction } from '../resources/commits/resource.js';
import { repositoryFiles } from '../resources/files/resource.js';
import { repositoryTree, type FileDiff } from '../resources/repository/resource.js';
import { plural } from '../parse.js';

/**
 * Commits of many file changes at once (the commits API's actions), as `commits create` and desired state's
 * repository files build them: create or update is decided from the branch's tree, and a file whose content is
 * unchanged is skipped without being downloaded, by comparing git's blob id of the local bytes with the tree's.
 */

export interface TreeEntry {
  path: string;
  id: string;
  mode: string;
  type: string;
}

/** Content to commit at a path of the branch; `executable` undefined leaves the mode alone. */
export interface FileContent {
  path: string;
  bytes: Buffer;
  executable?: boolean;
}

/** Where a commit goes: the branch, and where a new branch starts. */
export interface CommitTarget {
  project: string;
  branch: string;
  startBranch?: string;
  startSha?: string;
  startProject?: string;
  force?: boolean;
}

/** The files of a branch by path, and the commit they were read at (`head`; none when the branch is new). */
export type BranchTree = Map<string, TreeEntry> & { head?: string };

/**
 * The files of a branch (or of its start point, for a new branch), by path; empty for an empty repository. An
 * existing branch is read at its head commit, so that a push made meanwhile can be found before committing.
 */
export async function branchTree(api: Api, target: CommitTarget): Promise<BranchTree> {
  const head = target.force ? undefined : await branchHead(api, target.project, target.branch);
  const ref = head ?? target.startSha ?? target.startBranch ?? target.branch;
  const tree: BranchTree = Object.assign(new Map<string, TreeEntry>(), { head });
  try {
    const project = target.startProject && !head && ref !== target.branch ? target.startProject : target.project;
    const list = api.list<TreeEntry>(repositoryTree.routes.list, { project, ref, recursive: true }, { all: true, perPage: 100, keysetOnly: true });
    for await (const entry of list) tree.set(entry.path, entry);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404 && /tree/i.test(error.message))) throw error;
  }
  return tree;
}

const UNMOVED_HINT = 'nothing was committed: run the command again to compare with the branch as it is now';

/**
 * Refuses to commit when the branch moved since `tree` was read and the new commits touch a path the actions
 * change: the commits API applies actions to the branch as it is, so an update or a delete would silently undo
 * someone's push. A move that touches none of these paths is kept (the commit goes on top of it). The service's own
 * check (guardActions) closes the gap between this check and the commit; this one names every changed path (the
 * service names one file, or none for a create) before anything is sent, and also covers the chmod actions the service
 * does not check.
 */
export async function assertBranchUnmoved(api: Api, target: CommitTarget, tree: BranchTree, actions: CommitAction[], when = 'while this commit was prepared'): Promise<void> {
  if (!tree.head) return;
  const now = await branchHead(api, target.project, target.branch);
  if (now === tree.head) return;
  const ours = new Set(actions.flatMap((a) => [a.file_path, ...(a.previous_path ? [a.previous_path] : [])]));
  const moved = `branch ${target.branch} moved ${when} (${tree.head.slice(0, 8)} → ${now ? now.slice(0, 8) : 'deleted'})`;
  if (!now) throw new CliError(moved, ExitCode.rejected, UNMOVED_HINT);
  const comparison = await api.call<{ diffs: FileDiff[]; compare_timeout?: boolean }>(repositoryTree.routes.compare, { project: target.project, from: tree.head, to: now, straight: true });
  if (comparison.compare_timeout) throw new CliError(`${moved} and the service could not list what changed`, ExitCode.rejected, UNMOVED_HINT);
  const touched = [...new Set(comparison.diffs.flatMap((d) => [d.old_path, d.new_path]))].filter((path) => ours.has(path));
  if (touched.length) throw new CliError(`${moved} and the new commits change ${touched.slice(0, 3).join(', ')}${touched.length > 3 ? ` and ${touched.length - 3} more` : ''}`, ExitCode.rejected, UNMOVED_HINT);
}

/** The actions whose file the service can check against the commit it was read at: the file an update, a delete or a move starts from. */
const GUARDED: ReadonlySet<CommitAction['action']> = new Set(['update', 'delete', 'move']);
/** How many files' last commits are asked for at once. */
const LOOKUPS_AT_ONCE = 8;

/**
 * Gives every update, delete and move action the last commit of its file as of the commit `tree` was read at
 * (`last_commit_id`, from the file's headers: one HEAD request per such file). The service then refuses the whole
 * commit when one of these files changed since, in the same step as it commits, so that a push landing after
 * assertBranchUnmoved's check is never silently undone. An action that already carries one keeps it; a new branch
 * (no head) has nothing to guard.
 */
export async function guardActions(api: Api, target: CommitTarget, tree: BranchTree, actions: CommitAction[]): Promise<void> {
  const head = tree.head;
  if (!head) return;
  const guarded = actions.filter((a) => GUARDED.has(a.action) && !a.last_commit_id);
  const paths = [...new Set(guarded.map(sourcePath))].filter((path) => tree.get(path)?.type === 'blob');
  const lastCommits = new Map<string, string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < paths.length) {
      const path = paths[next++];
      const response = await api.open(repositoryFiles.routes.info, { project: target.project, file_path: path, ref: head });
      await response.body.dump().catch(() => undefined);
      const id = response.header('x-gitlab-last-commit-id') ?? response.header('x-service-last-commit-id');
      if (id) lastCommits.set(path, id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_AT_ONCE, paths.length) }, worker));
  for (const action of guarded) {
    const id = lastCommits.get(sourcePath(action));
    if (id) action.last_commit_id = id;
  }
}

/** The file of the branch an action starts from: a move's previous path, every other action's path. */
const sourcePath = (action: CommitAction): string => (action.action === 'move' && action.previous_path ? action.previous_path : action.file_path);

/**
 * Sends the commit; when the service refuses it because a file changed after the actions were computed (a stale
 * `last_commit_id`) or a file to create now exists, nothing was committed: exit 6 naming every path the new commits
 * change (the service names one file, or none), with the way out, which is to compare again. When no new commit
 * changed them, the service's refusal is passed on as it is.
 */
export async function commitGuarded<T>(api: Api, target: CommitTarget, tree: BranchTree, actions: CommitAction[], commit: () => Promise<T>): Promise<T> {
  try {
    return await commit();
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 400 && STALE.test(error.message))) throw error;
    await assertBranchUnmoved(api, target, tree, actions, 'while this commit was sent');
    // No new commit changed these paths: the refusal is of the actions as given (an --actions-file create of a file
    // the branch has), in the service's words.
    throw error;
  }
}

/** The service's refusals of a commit whose files changed under it: a stale last_commit_id, a create of a path that now exists. */
const STALE = /has changed since you started editing it|A file with this name already exists/i;

/**
 * The service answers a commit to a branch that does not exist with "You can only create or edit files when you are
 * on a branch", which names no way out: the same error, with the hint of the flag that creates the branch.
 */
export function withMissingBranchHint(error: unknown, branch: string, flags = '--start-branch BRANCH'): unknown {
  if (!(error instanceof ApiError) || error.status !== 400 || !/when you are on a branch/i.test(error.message)) return error;
  return new ApiError(error.message, error.status, error.method, error.path, error.requestId, `branch ${branch} does not exist: to create it, give the branch to start it from (${flags})`, error.body);
}

export async function branchExists(api: Api, project: string, branch: string): Promise<boolean> {
  return (await branchHead(api, project, branch)) !== undefined;
}

/** The commit a branch points to, or undefined when there is no such branch. */
async function branchHead(api: Api, project: string, branch: string): Promise<string | undefined> {
  try {
    return (await api.call<{ id: string }>(commits.routes.get, { project, sha: branch, stats: false })).id;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The actions that make the branch hold these files: create, update or a mode change; nothing for identical files. */
export function fileActions(tree: Map<string, TreeEntry>, files: FileContent[]): CommitAction[] {
  const actions: CommitAction[] = [];
  for (const file of files) {
    const current = tree.get(file.path);
    if (current && current.type !== 'blob') throw new UsageError(`${file.path} is a ${current.type === 'tree' ? 'folder' : 'submodule'} on the branch, not a file`);
    if (current?.id !== gitBlobId(file.bytes)) actions.push({ action: current ? 'update' : 'create', file_path: file.path, ...encodeContent(file.bytes) });
    if (file.executable === undefined) continue;
    const wasExecutable = current?.mode === '100755';
    if ((current && wasExecutable !== file.executable) || (!current && file.executable)) actions.push({ action: 'chmod', file_path: file.path, execute_filemode: file.executable });
  }
  return actions;
}

/** "3 changes (2 updated, 1 created)". */
export function summarizeActions(actions: CommitAction[]): string {
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a.action, (counts.get(a.action) ?? 0) + 1);
  const words: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', move: 'moved', chmod: 'mode changed' };
  return `${plural(actions.length, 'change')} (${[...counts].map(([k, n]) => `${n} ${words[k]}`).join(', ')})`;
}
