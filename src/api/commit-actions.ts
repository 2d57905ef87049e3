import { ApiError, UsageError } from '../errors.js';
import { encodeContent } from '../git/content.js';
import { gitBlobId } from '../git/objects.js';
import type { Api } from './client.js';
import { commits, type CommitAction } from '../resources/commits/resource.js';
import { repositoryTree } from '../resources/repository/resource.js';
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

/** The files of a branch (or of its start point, for a new branch), by path; empty for an empty repository. */
export async function branchTree(api: Api, target: CommitTarget): Promise<Map<string, TreeEntry>> {
  const ref = target.force || !(await branchExists(api, target.project, target.branch)) ? (target.startSha ?? target.startBranch ?? target.branch) : target.branch;
  const tree = new Map<string, TreeEntry>();
  try {
    const project = target.startProject && ref !== target.branch ? target.startProject : target.project;
    const list = api.list<TreeEntry>(repositoryTree.routes.list, { project, ref, recursive: true }, { all: true, perPage: 100, keysetOnly: true });
    for await (const entry of list) tree.set(entry.path, entry);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404 && /tree/i.test(error.message))) throw error;
  }
  return tree;
}

/**
 * The service answers a commit to a branch that does not exist with "You can only create or edit files when you are
 * on a branch", which names no way out: the same error, with the hint of the flag that creates the branch.
 */
export function withMissingBranchHint(error: unknown, branch: string, flags = '--start-branch BRANCH'): unknown {
  if (!(error instanceof ApiError) || error.status !== 400 || !/when you are on a branch/i.test(error.message)) return error;
  return new ApiError(error.message, error.status, error.method, error.path, error.requestId, `branch ${branch} does not exist: to create it, give the branch to start it from (${flags})`, error.body);
}

export async function branchExists(api: Api, project: string, branch: string): Promise<boolean> {
  try {
    await api.call(commits.routes.get, { project, sha: branch, stats: false });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
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
