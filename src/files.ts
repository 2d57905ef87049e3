import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from './errors.js';
import { fileProblem, writeFileAtomically as writeThroughTheOnePath } from './write.js';

/** Why a file operation failed, in words (one list, beside the one write path). */
export { fileProblem };

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

/** Writes a file atomically (fsynced, then renamed), mode 0600, through the one write path (plans, lists of failed projects). */
export function writeFileAtomically(path: string, text: string): void {
  checkWritableTarget(path);
  writeThroughTheOnePath(path, text, 'secret');
}
