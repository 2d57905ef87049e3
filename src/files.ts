import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
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

/**
 * The text of a regular file of at most `limit` bytes, for a path that someone else named: opened without blocking
 * (a FIFO cannot wedge the run) and checked with fstat before a byte is read (a device such as /dev/zero cannot fill
 * memory). Exit 2 for anything else.
 */
export function readRegularFile(path: string, limit: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${fileProblem(error)}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`cannot read ${path}: it is not a regular file`);
    if (stat.size > limit) throw new UsageError(`cannot read ${path}: it is ${stat.size.toLocaleString('en-US')} bytes, more than the ${limit.toLocaleString('en-US')} allowed`);
    const buffer = Buffer.alloc(stat.size);
    const read = readSync(fd, buffer, 0, stat.size, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
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
