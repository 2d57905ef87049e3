import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import type { SnippetFileAction } from './resource.js';
import { fileProblem } from '../../files.js';
import { UsageError } from '../../errors.js';

/** Local files of the snippet commands: text only (snippets hold text), read whole (snippets are small). */

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A local file's text; a binary file (a NUL byte, or not UTF-8) is refused. */
export function readText(path: string, data?: Buffer): string {
  let bytes = data;
  if (!bytes) {
    try {
      bytes = readFileSync(path);
    } catch (error) {
      throw new UsageError(`cannot read ${path}: ${fileProblem(error)}`);
    }
  }
  try {
    if (bytes.includes(0)) throw new Error('NUL');
    return utf8.decode(bytes);
  } catch {
    throw new UsageError(`${path} looks binary: snippets hold text files only`, 'commit binary files to a repository instead: forgectl commits create');
  }
}

/** A path inside a snippet, as the service takes it: relative, with no `..` or empty parts. */
export function snippetPath(path: string, label = 'file path'): string {
  const clean = path.replace(/\\/g, '/').replace(/^\.\//, '');
  if (!clean || clean.startsWith('/') || clean.split('/').some((part) => part === '..' || part === '' || part === '.')) {
    throw new UsageError(`${label} "${path}" is not a relative path inside the snippet`);
  }
  return clean;
}

/** `LOCAL[:PATH]`: a local file and its path in the snippet (its base name by default). */
export function parseLocal(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const index = value.lastIndexOf(':');
  const [local, remote] = index > 0 ? [value.slice(0, index), value.slice(index + 1)] : [value, basename(value)];
  return [...previous, [local, snippetPath(remote)]];
}

/** `OLD:NEW` pairs of --move. */
export function parseMove(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const index = value.indexOf(':');
  if (index <= 0) throw new UsageError(`--move takes OLD:NEW, got "${value}"`);
  return [...previous, [snippetPath(value.slice(0, index), '--move'), snippetPath(value.slice(index + 1), '--move')]];
}

/** Every file under a folder, by its path relative to the folder (with /), .git skipped; links are not followed. */
export function folderFiles(dir: string, warn: (text: string) => void): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      throw new UsageError(`cannot read the folder ${folder}: ${fileProblem(error)}`);
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(full);
      } else if (entry.isFile()) {
        out.set(relative(dir, full).split(sep).join('/'), readText(full));
      } else {
        warn(`skipped ${full} (not a regular file)`);
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * The actions that make a snippet's files equal a folder's: new files created, changed ones updated, missing ones
 * deleted, and a file that only changed its path moved (same content under a new name).
 */
export function syncActions(remote: Map<string, string>, local: Map<string, string>): SnippetFileAction[] {
  const actions: SnippetFileAction[] = [];
  const added = [...local.keys()].filter((path) => !remote.has(path));
  const removed = [...remote.keys()].filter((path) => !local.has(path));
  for (const path of removed) {
    const to = added.find((candidate) => local.get(candidate) === remote.get(path));
    if (to) {
      actions.push({ action: 'move', previous_path: path, file_path: to });
      added.splice(added.indexOf(to), 1);
    } else {
      actions.push({ action: 'delete', file_path: path });
    }
  }
  for (const [path, content] of local) {
    if (remote.has(path) && remote.get(path) !== content) actions.push({ action: 'update', file_path: path, content });
  }
  for (const path of added) actions.push({ action: 'create', file_path: path, content: local.get(path)! });
  return actions;
}
