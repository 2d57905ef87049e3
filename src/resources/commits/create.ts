import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { assertBranchUnmoved, branchExists, branchTree, commitGuarded, fileActions, guardActions, summarizeActions, withMissingBranchHint, type BranchTree, type CommitTarget, type FileContent } from '../../api/commit-actions.js';
import { gitBlobId } from '../../git/objects.js';
import type { CommitAction } from './resource.js';
import { commits } from './resource.js';
import { checkPushAllowed } from '../branches/protected-ref.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { fileProblem, readLocalFile } from '../../files.js';
import { projectOption } from '../../cli/options.js';
import { collect, parseChoice, plural } from '../../parse.js';
import { UsageError } from '../../errors.js';
import { repoPath } from '../../git/content.js';
import { isIgnored, parseIgnore, type IgnoreRule } from '../../git/ignore.js';

interface Flags {
  project?: string;
  branch: string;
  message?: string;
  messageFile?: string;
  add?: string[];
  delete?: string[];
  move?: string[];
  chmod?: string[];
  fromDir?: string;
  to?: string;
  prune?: boolean;
  exclude?: string[];
  symlinks: SymlinkMode;
  actionsFile?: string;
  startBranch?: string;
  startSha?: string;
  startProject?: string;
  force?: boolean;
  authorName?: string;
  authorEmail?: string;
}

type Action = CommitAction;

const SYMLINK_MODES = ['error', 'skip', 'follow'] as const;
type SymlinkMode = (typeof SYMLINK_MODES)[number];

/** A local file to commit at a repository path. */
interface LocalFile {
  local: string;
  path: string;
}

export default defineCommand<Flags>({
  effect: 'write',
  description: [
    'Commits local files in one commit. For each file, create or update is decided from the branch\'s tree, and files whose content is unchanged are skipped without downloading them (their git blob id is computed locally); when nothing changed it says "nothing to commit" and exits 0, never making an empty commit.',
    'Binary files are sent as base64; the executable bit comes from the file on disk. --from-dir makes a folder of the branch (--to) equal a local folder: changed and new files are committed, and with --prune files that are no longer there are deleted (one whose content a new file has is committed as its rename). Deletions (--prune, --delete, --actions-file) are named and asked for first, and so is --force on an existing branch (--yes off a terminal).',
    'What the folder\'s .gitignore files and --exclude leave out is neither committed nor pruned; .git is skipped. A symbolic link stops the command before anything is sent, unless --symlinks skip leaves links out or --symlinks follow commits the files they point to.',
    'A push made meanwhile to a file the commit changes is never undone: the commit is refused (exit 6, naming the files, nothing committed); run the command again to compare with the branch as it is now.',
  ].join('\n'),
  examples: [
    'forgectl commits create --project acme/api --branch main -m "Sync docs" --from-dir ./site --to docs/',
    'forgectl commits create --project acme/api --branch feature -m "Update config" --add config/app.yml --add ./build/app.js:dist/app.js --delete docs/deploy.md --yes',
    'forgectl commits create --project acme/api --branch release --start-branch main -m "Release" --move docs/deploy.md:docs/DEPLOY.md --chmod -x:bin/deploy.sh',
  ],
  options: [
    projectOption,
    { flags: '--branch <branch>', description: 'the branch to commit to (created from --start-branch or --start-sha when new)', required: true },
    { flags: '-m, --message <text>', description: 'commit message' },
    { flags: '--message-file <file>', description: 'commit message from a file, or - for stdin', localFile: true },
    { flags: '--add <local[:remote]>', description: 'commit this local file (at the same relative path, or at REMOTE); repeatable', parse: collect, localFile: true },
    { flags: '--delete <path>', description: 'delete this file of the branch (asks first; --yes off a terminal); repeatable', parse: collect },
    { flags: '--move <old:new>', description: 'rename a file of the branch; repeatable', parse: collect },
    { flags: '--chmod <+x|-x:path>', description: 'set or clear the executable bit of a file of the branch; repeatable', parse: collect },
    { flags: '--from-dir <dir>', description: 'commit every file of this local folder', localFile: true },
    { flags: '--to <prefix>', description: 'the folder of the branch that --from-dir maps to (default: the root)' },
    { flags: '--prune', description: 'with --from-dir: delete files under --to that the local folder does not have (asks first; --yes off a terminal); what .gitignore or --exclude leaves out is kept' },
    { flags: '--exclude <glob>', description: 'with --from-dir: leave out matching files, as a .gitignore line (the folder\'s .gitignore files count too); repeatable', parse: collect },
    { flags: '--symlinks <mode>', description: 'with --from-dir: what symbolic links do: error, skip or follow (commit the file they point to)', default: 'error', parse: parseChoice('--symlinks', SYMLINK_MODES) },
    { flags: '--actions-file <file>', description: 'further actions as the service takes them (a JSON array), from a file or - for stdin', localFile: true },
    { flags: '--start-branch <branch>', description: 'create --branch from this branch' },
    { flags: '--start-sha <sha>', description: 'create --branch from this commit' },
    { flags: '--start-project <id|path>', description: 'the project --start-branch or --start-sha is in (a fork)' },
    { flags: '--force', description: 'replace the branch with this commit on top of --start-branch or --start-sha (asks first)' },
    { flags: '--author-name <name>', description: 'commit author (default: you)' },
    { flags: '--author-email <email>', description: 'commit author email (default: yours)' },
  ],
  async run(opts, ctx) {
    const message = await commitMessage(opts, ctx);
    const project = ctx.project(opts.project);
    // Everything local is read and checked before the first request.
    const folder = opts.fromDir ? walk(opts.fromDir, opts.to ? repoPath(opts.to, '--to') : '', opts.exclude ?? [], opts.symlinks, (text) => ctx.io.note(text)) : undefined;
    const files = [...(opts.add ?? []).map(parseAdd), ...(folder?.files ?? [])];
    const deletes = (opts.delete ?? []).map((p) => repoPath(p, '--delete'));
    const moves = (opts.move ?? []).map(parsePair('--move'));
    const chmods = (opts.chmod ?? []).map(parseChmod);
    const extra = opts.actionsFile ? await readActions(opts.actionsFile, ctx) : [];
    if (opts.prune && !opts.fromDir) throw new UsageError('--prune needs --from-dir');
    if (opts.to && !opts.fromDir) throw new UsageError('--to needs --from-dir');
    if (opts.exclude && !opts.fromDir) throw new UsageError('--exclude needs --from-dir');
    const seen = new Map<string, string>();
    for (const file of files) {
      if (seen.has(file.path)) throw new UsageError(`${file.path} is given twice (${seen.get(file.path)} and ${file.local})`);
      seen.set(file.path, file.local);
    }
    if (!files.length && !deletes.length && !moves.length && !chmods.length && !extra.length && !opts.prune) {
      throw new UsageError('nothing to commit: give --add, --from-dir, --delete, --move, --chmod or --actions-file');
    }

    const target = { project, branch: opts.branch, startBranch: opts.startBranch, startSha: opts.startSha, startProject: opts.startProject, force: opts.force };
    // A protected branch that refuses the caller's pushes stops the run before the tree is read and anything sent.
    await checkPushAllowed(ctx, project, opts.branch);
    const tree = await branchTree(ctx.api, target);
    const contents = files.map((file) => ({ path: file.path, bytes: readLocalFile(file.local), executable: (statSync(file.local).mode & 0o111) !== 0 }));
    const actions: Action[] = fileActions(tree, contents);
    const prefix = opts.to ? `${repoPath(opts.to, '--to')}/` : '';
    const kept = (path: string) => isIgnored(folder!.ignore, path.slice(prefix.length), false);
    const gone = renamed(tree, opts.prune ? [...tree].filter(([path, entry]) => entry.type === 'blob' && path.startsWith(prefix) && !seen.has(path) && !kept(path)).map(([path]) => path) : [], contents, actions);
    for (const path of gone) actions.push({ action: 'delete', file_path: path });
    for (const path of deletes) {
      if (!tree.has(path)) throw new UsageError(`--delete ${path}: the branch has no such file`);
      actions.push({ action: 'delete', file_path: path });
    }
    for (const [from, to] of moves) actions.push({ action: 'move', previous_path: from, file_path: to });
    for (const { path, executable } of chmods) {
      const current = tree.get(path);
      if (!current) throw new UsageError(`--chmod ${path}: the branch has no such file`);
      if ((current.mode === '100755') !== executable) actions.push({ action: 'chmod', file_path: path, execute_filemode: executable });
    }
    actions.push(...extra);
    if (!actions.length) {
      ctx.io.note(`nothing to commit: ${opts.branch} already has ${files.length === 1 ? 'this content' : `the content of all ${files.length.toLocaleString('en-US')} files`}`);
      return undefined;
    }
    await confirmLosses(ctx, { ...target, prefix: deletes.length || extra.some((a) => a.action === 'delete') ? '' : prefix }, actions, { prune: gone.length > 0, delete: deletes.length > 0, actionsFile: extra.some((a) => a.action === 'delete') });
    const summary = summarizeActions(actions);
    await guardActions(ctx.api, target, tree, actions);
    await assertBranchUnmoved(ctx.api, target, tree, actions);
    const send = () => ctx.api.call<{ short_id: string }>(commits.routes.create, {
      project,
      branch: opts.branch,
      commit_message: message,
      actions,
      start_branch: opts.startBranch,
      start_sha: opts.startSha,
      start_project: opts.startProject,
      force: opts.force || undefined,
      author_name: opts.authorName,
      author_email: opts.authorEmail,
    }).catch((error: unknown) => {
      throw withMissingBranchHint(error, opts.branch, '--start-branch BRANCH or --start-sha SHA');
    });
    const commit = await commitGuarded(ctx.api, target, tree, actions, send);
    ctx.io.note(`committed ${summary} to ${opts.branch} as ${commit.short_id}`);
    return commit;
  },
});

/**
 * Asks before a commit that deletes files (--prune, --delete, delete actions of --actions-file), naming them, and
 * before --force replaces an existing branch: its commits not on the start point are dropped from it.
 */
async function confirmLosses(ctx: Context, target: CommitTarget & { prefix: string }, actions: Action[], from: Record<'prune' | 'delete' | 'actionsFile', boolean>): Promise<void> {
  const deleted = actions.filter((a) => a.action === 'delete').map((a) => a.file_path);
  const where = `on branch ${target.branch} of project ${target.project}`;
  if (deleted.length) {
    previewDeletions(ctx, deleted);
    const flags = [from.prune && '--prune', from.delete && '--delete', from.actionsFile && '--actions-file'].filter(Boolean).join(', ');
    await ctx.confirm(`Delete ${plural(deleted.length, 'file')} ${target.prefix ? `under ${target.prefix} ` : ''}${where} (${flags})?`);
  }
  if (target.force && (await branchExists(ctx.api, target.project, target.branch))) {
    const start = target.startSha ?? target.startBranch ?? 'the start point';
    await ctx.confirm(`--force replaces branch ${target.branch} of project ${target.project} with this commit on top of ${start}: its commits that ${start} lacks are dropped from it. Replace it?`);
  }
}

/**
 * A file --prune would delete whose content a new file has (a file renamed or moved in the local folder) becomes a
 * move: the commit records the rename and the content is not uploaded again; the mode still follows the local file.
 * Gives the files left to delete.
 */
function renamed(tree: BranchTree, gone: string[], contents: Array<Required<FileContent>>, actions: Action[]): string[] {
  const goneByBlob = new Map<string, string>();
  for (const path of gone) if (!goneByBlob.has(tree.get(path)!.id)) goneByBlob.set(tree.get(path)!.id, path);
  if (!goneByBlob.size) return gone;
  const created = new Map(actions.map((action, index) => [action, index] as const).filter(([a]) => a.action === 'create').map(([a, index]) => [a.file_path, index]));
  const moved = new Set<string>();
  const chmods: Action[] = [];
  for (const file of contents) {
    const index = created.get(file.path);
    const from = index === undefined ? undefined : goneByBlob.get(gitBlobId(file.bytes));
    if (index === undefined || from === undefined || moved.has(from)) continue;
    moved.add(from);
    actions[index] = { action: 'move', previous_path: from, file_path: file.path };
    if ((tree.get(from)!.mode === '100755') !== file.executable) chmods.push({ action: 'chmod', file_path: file.path, execute_filemode: file.executable });
  }
  // The chmod a created file got is replaced by the one the moved file needs (if any), after the move.
  const keep = actions.filter((a) => !(a.action === 'chmod' && created.has(a.file_path) && actions[created.get(a.file_path)!].action === 'move'));
  actions.splice(0, actions.length, ...keep, ...chmods);
  return gone.filter((path) => !moved.has(path));
}

/** The files a deletion takes, on stderr before it is confirmed (the first 20, then how many more). */
function previewDeletions(ctx: Context, paths: string[]): void {
  for (const path of paths.slice(0, 20)) ctx.io.note(`delete ${path}`);
  if (paths.length > 20) ctx.io.note(`… and ${(paths.length - 20).toLocaleString('en-US')} more`);
}

async function commitMessage(opts: Flags, ctx: Context): Promise<string> {
  if (opts.message !== undefined && opts.messageFile !== undefined) throw new UsageError('give -m or --message-file, not both');
  const message = opts.messageFile === '-' ? await ctx.io.readStdin() : opts.messageFile !== undefined ? readLocalFile(opts.messageFile, 'utf8') : opts.message;
  if (message === undefined) throw new UsageError('a commit needs a message: -m TEXT or --message-file FILE');
  if (!message.trim()) throw new UsageError('the commit message is empty');
  return message;
}

function parseAdd(value: string): LocalFile {
  const colon = value.lastIndexOf(':');
  const [local, remote] = colon > 0 && !/^[A-Za-z]:[\\/]/.test(value.slice(colon - 1)) ? [value.slice(0, colon), value.slice(colon + 1)] : [value, undefined];
  let stat;
  try {
    stat = statSync(local);
  } catch (error) {
    throw new UsageError(`cannot read ${local}: ${fileProblem(error)}`);
  }
  if (!stat.isFile()) throw new UsageError(`--add ${local}: not a file (use --from-dir for a folder)`);
  if (remote === undefined && (local.startsWith('/') || local.split(/[\\/]/).includes('..'))) {
    throw new UsageError(`--add ${local}: give the path in the repository as --add ${local}:PATH`);
  }
  return { local, path: repoPath(remote ?? local, '--add') };
}

const parsePair = (flag: string) => (value: string): [string, string] => {
  const parts = value.split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new UsageError(`${flag} takes OLD:NEW, got "${value}"`);
  return [repoPath(parts[0], flag), repoPath(parts[1], flag)];
};

function parseChmod(value: string): { path: string; executable: boolean } {
  const match = /^([+-])x:(.+)$/.exec(value);
  if (!match) throw new UsageError(`--chmod takes +x:PATH or -x:PATH, got "${value}"`);
  return { path: repoPath(match[2], '--chmod'), executable: match[1] === '+' };
}

/** A local folder's files as --from-dir commits them, and the rules that left files out (which --prune leaves alone). */
interface Folder {
  files: LocalFile[];
  ignore: IgnoreRule[];
}

/**
 * Every regular file under a local folder, mapped under `prefix`: not .git, not what its .gitignore files or --exclude
 * leave out. Symbolic links as `symlinks` says: error (the default) stops before anything is sent, skip leaves them
 * out, follow commits the file a link points to (a link to a folder, or a broken one, is left out, saying so).
 */
function walk(dir: string, prefix: string, excludes: string[], symlinks: SymlinkMode, note: (text: string) => void): Folder {
  let stat;
  try {
    stat = statSync(dir);
  } catch (error) {
    throw new UsageError(`cannot read ${dir}: ${fileProblem(error)}`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--from-dir ${dir}: not a folder`);
  const files: LocalFile[] = [];
  const rules: IgnoreRule[] = [];
  const exclude = parseIgnore(excludes.join('\n'));
  const ignored = (rel: string, isDir: boolean) => isIgnored([...rules, ...exclude], rel, isDir);
  const visit = (here: string): void => {
    const names = readdirSync(here).sort();
    const base = relative(dir, here).split(sep).join('/');
    if (names.includes('.gitignore')) rules.push(...parseIgnore(readLocalFile(join(here, '.gitignore'), 'utf8'), base));
    for (const name of names) {
      const full = join(here, name);
      const rel = base ? `${base}/${name}` : name;
      let info = lstatSync(full);
      if (info.isSymbolicLink()) {
        if (ignored(rel, false)) continue;
        if (symlinks === 'error') {
          throw new UsageError(`--from-dir: ${full} is a symbolic link; nothing was sent`, 'choose what links do: --symlinks skip (leave them out) or --symlinks follow (commit the file a link points to)');
        }
        const target = symlinks === 'follow' ? statOrUndefined(full) : undefined;
        if (!target?.isFile()) {
          note(`left out ${full}: ${symlinks === 'skip' ? 'a symbolic link' : target ? 'a link to a folder' : 'a broken link'}`);
          continue;
        }
        info = target;
      }
      if (info.isDirectory()) {
        if (name !== '.git' && !ignored(rel, true)) visit(full);
      } else if (info.isFile()) {
        if (!ignored(rel, false)) files.push({ local: full, path: prefix ? `${prefix}/${rel}` : rel });
      } else {
        throw new UsageError(`--from-dir: ${full} is a special file; only regular files can be committed`);
      }
    }
  };
  visit(dir);
  return { files, ignore: [...rules, ...exclude] };
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

async function readActions(file: string, ctx: Context): Promise<Action[]> {
  const text = file === '-' ? await ctx.io.readStdin() : readLocalFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--actions-file ${file}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed) || parsed.some((a) => !a || typeof a !== 'object' || typeof (a as Action).action !== 'string' || typeof (a as Action).file_path !== 'string')) {
    throw new UsageError(`--actions-file ${file}: expected an array of {"action": …, "file_path": …}`);
  }
  return (parsed as Action[]).map((a) => ({ ...a, file_path: repoPath(a.file_path, 'file_path'), ...(a.previous_path ? { previous_path: repoPath(a.previous_path, 'previous_path') } : {}) }));
}
