import type { CommitAction as ClientAction } from '../../resources/commits/resource.js';
import { projectRole, Role } from '../auth.js';
import { errors, required, type SandboxRequest } from '../http.js';
import type { Commit, Project } from '../model.js';
import { mayPush } from '../protection.js';
import { lastCommitFor, moveBranch, parentsOf, repositoryOf, resolveRevision, snapshotOf, writeCommit } from './repository.js';
import { entryAt, putBlob, writeTree, type Snapshot } from './store.js';

/** Writing to a branch through the API: the commit endpoint, single-file changes, submodules and cherry-picks. */

export interface BranchWrite {
  branch: string;
  message: string;
  startBranch?: string;
  startSha?: string;
  /** Overwrite the branch with a commit based on startBranch/startSha. */
  force?: boolean;
  authorName?: string;
  authorEmail?: string;
  /** Changes the snapshot of the base commit; throws HttpError to refuse. */
  change(snapshot: Snapshot, base: Commit | undefined): void;
}

/**
 * The branch write a request asks for: `branch` and `commit_message` (400 when missing; a route that words its own
 * message gives it as the default), `start_branch`, the author.
 */
export function branchWriteOf(req: SandboxRequest, defaultMessage?: string): Omit<BranchWrite, 'change'> {
  return {
    branch: String(required(req, 'branch')),
    message: String(defaultMessage !== undefined && req.input.commit_message === undefined ? defaultMessage : required(req, 'commit_message')),
    startBranch: req.input.start_branch,
    authorName: req.input.author_name,
    authorEmail: req.input.author_email,
  };
}

/** The 400 the service answers for a path that escapes the repository or is not a plain relative path. */
export function checkPath(path: unknown, name = 'file_path'): string {
  if (typeof path !== 'string' || !path) throw errors.missing(name);
  const parts = path.split('/');
  if (path.startsWith('/') || parts.some((p) => p === '..' || p === '.' || p === '') || parts[0] === '.git' || path.includes('\0')) {
    throw errors.error(400, `${name} should be a valid file path`);
  }
  return path;
}

/**
 * Commits a change to a branch atomically: the base is the branch (or startBranch/startSha for a new branch, or
 * nothing in an empty repository); nothing is written unless the whole change applies. Returns the new commit after
 * moving the branch and telling the push listeners.
 */
export function commitToBranch(req: SandboxRequest, project: Project, write: BranchWrite): Commit {
  const user = req.user!;
  const role = projectRole(req.db, user, project);
  if (role < Role.developer) throw errors.forbidden();
  if (!mayPush(req.db, user, project, write.branch)) throw errors.forbidden('You are not allowed to push into this branch');

  const repository = repositoryOf(req.db, project.id);
  const exists = write.branch in repository.branches;
  const start = write.startSha ?? write.startBranch;
  let base: Commit | undefined;
  if (exists && (!start || start === write.branch)) {
    base = resolveRevision(req.db, project, write.branch);
  } else if (exists && !write.force) {
    throw errors.message(400, `A branch called '${write.branch}' already exists. Switch to that branch in order to make changes`);
  } else if (start) {
    base = resolveRevision(req.db, project, start);
    if (!base) throw errors.message(400, write.startSha ? `Invalid start sha: ${write.startSha}` : `Invalid reference name: ${write.startBranch}`);
  } else if (Object.keys(repository.branches).length) {
    throw errors.message(400, 'You can only create or edit files when you are on a branch');
  }

  const snapshot = snapshotOf(req.db, base);
  write.change(snapshot, base);
  const tree = writeTree(req.db, snapshot);
  if (base && tree === base.tree && exists && !write.force) throw errors.message(400, 'No changes were made: the commit would be empty');

  const now = req.now().toISOString();
  const commit = writeCommit(req.db, project.id, {
    parents: base ? [base] : [],
    snapshot,
    message: write.message,
    author: { name: write.authorName ?? user.name, email: write.authorEmail ?? user.email, date: now },
    committer: { name: user.name, email: user.email, date: now },
  });
  req.pushed(moveBranch(req.db, project, write.branch, commit, user, req.now()));
  return commit;
}

/** An action of the commits API as the service takes it. */
export type CommitAction = ClientAction;

/** The bytes of an action's content in its encoding. */
function decodeContent(content: unknown, encoding: unknown): Buffer {
  if (encoding !== undefined && encoding !== 'text' && encoding !== 'base64') throw errors.invalid('encoding');
  const text = content === undefined || content === null ? '' : String(content);
  return encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

// Git's refusals as the service words them (Gitaly's index errors): they name no path.
const FILE_EXISTS = 'A file with this name already exists';
const NO_FILE = "A file with this name doesn't exist";

/** The actions the service checks against their `last_commit_id` (a move by the file it starts from). */
const GUARDED = new Set(['update', 'delete', 'move']);

/**
 * The newest commit of `head`'s first-parent history that changed `path` (added, changed or deleted it, as
 * `git log -1 -- path`), or undefined when none did.
 */
function lastChangeOf(db: SandboxRequest['db'], head: Commit, path: string): Commit | undefined {
  const last = lastCommitFor(db, head, path);
  return entryAt(db, last.tree, path) || parentsOf(db, last, true).length ? last : undefined;
}

/**
 * The service's check of a `last_commit_id` (Files::BaseService#file_has_changed?): the file's last change on the
 * branch differs from its last change as of the given commit. An unknown commit, or a path that neither history
 * changed, is not checked: the service lets those through.
 */
export function fileChanged(req: SandboxRequest, project: Project, base: Commit | undefined, path: string, lastCommitId: unknown): boolean {
  if (!lastCommitId || !base) return false;
  const onBranch = lastChangeOf(req.db, base, path);
  const given = onBranch && resolveRevision(req.db, project, String(lastCommitId));
  const asGiven = given && lastChangeOf(req.db, given, path);
  return Boolean(asGiven && asGiven.id !== onBranch!.id);
}

/**
 * Applies the actions of a commit request to a snapshot, with the service's checks and messages: first every
 * update, delete and move against its `last_commit_id` (400 "The file has changed since you started editing it:
 * PATH", naming the file a move starts from), then each action in turn (400 with git's words, which name no path).
 */
export function applyActions(req: SandboxRequest, project: Project, snapshot: Snapshot, base: Commit | undefined, actions: CommitAction[]): void {
  for (const action of actions) {
    if (!action || typeof action !== 'object' || !GUARDED.has(action.action)) continue;
    const path = action.action === 'move' && action.previous_path ? action.previous_path : action.file_path;
    if (typeof path === 'string' && fileChanged(req, project, base, path, action.last_commit_id)) {
      throw errors.message(400, `The file has changed since you started editing it: ${path}`);
    }
  }
  const blob = (action: CommitAction): string => putBlob(req.db, decodeContent(action.content, action.encoding));
  for (const raw of actions) {
    const action = raw as CommitAction;
    if (!action || typeof action !== 'object') throw errors.invalid('actions');
    if (!['create', 'update', 'delete', 'move', 'chmod'].includes(action.action)) throw errors.error(400, 'actions[action] does not have a valid value');
    const path = checkPath(action.file_path, 'actions[file_path]');
    const current = snapshot.get(path);
    switch (action.action) {
      case 'create':
        if (current) throw errors.message(400, FILE_EXISTS);
        if (action.content === undefined) throw errors.missing('actions[content]');
        if ([...snapshot.keys()].some((p) => p.startsWith(`${path}/`))) throw errors.message(400, 'A directory with this name already exists');
        snapshot.set(path, { mode: action.execute_filemode ? '100755' : '100644', id: blob(action) });
        break;
      case 'update':
        if (!current) throw errors.message(400, NO_FILE);
        if (action.content === undefined) throw errors.missing('actions[content]');
        snapshot.set(path, { mode: current.mode, id: blob(action) });
        break;
      case 'delete':
        if (!current) throw errors.message(400, NO_FILE);
        snapshot.delete(path);
        break;
      case 'move': {
        const from = checkPath(action.previous_path, 'actions[previous_path]');
        const source = snapshot.get(from);
        if (!source) throw errors.message(400, NO_FILE);
        if (current && from !== path) throw errors.message(400, FILE_EXISTS);
        snapshot.delete(from);
        snapshot.set(path, { mode: source.mode, id: action.content === undefined ? source.id : blob(action) });
        break;
      }
      case 'chmod':
        if (!current) throw errors.message(400, NO_FILE);
        snapshot.set(path, { mode: action.execute_filemode === true || String(action.execute_filemode) === 'true' ? '100755' : '100644', id: current.id });
        break;
    }
  }
}

