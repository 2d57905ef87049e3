import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './errors.js';

/** Why a file operation failed, in words: "no such file", "permission denied". */
export function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'it is a folder',
    ENOTDIR: 'a part of the path is not a folder',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    EEXIST: 'it already exists',
    ELOOP: 'too many symbolic links',
    ENAMETOOLONG: 'the name is too long',
  };
  return (code && words[code]) ?? (error instanceof Error ? error.message : String(error));
}

/** A local file named on the command line; exit 2 with `cannot read PATH: no such file` when it cannot be read. */
export function readLocalFile(path: string): Buffer;
export function readLocalFile(path: string, encoding: 'utf8'): string;
export function readLocalFile(path: string, encoding?: 'utf8'): Buffer | string {
  try {
    return encoding ? readFileSync(path, encoding) : readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${fileProblem(error)}`);
  }
}

/** Checks, before anything is sent, that a file can be created at path: its folder exists and is a folder. */
export function checkWritableTarget(path: string): { exists: boolean } {
  const folder = dirname(path);
  try {
    if (!statSync(folder).isDirectory()) throw new UsageError(`cannot write ${path}: ${folder} is not a folder`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot write ${path}: ${fileProblem(error) === 'no such file' ? `no such folder ${folder}` : fileProblem(error)}`);
  }
  try {
    if (statSync(path).isDirectory()) throw new UsageError(`cannot write ${path}: it is a folder`);
    return { exists: true };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    return { exists: false };
  }
}

/** Writes a file atomically (a temporary file fsynced, then renamed), mode 0600. */
export function writeFileAtomically(path: string, text: string): void {
  checkWritableTarget(path);
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}
