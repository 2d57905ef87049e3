import { closeSync, constants, fdatasync, fstatSync, fsyncSync, ftruncateSync, lstatSync, openSync, readSync, renameSync, rmSync, statSync, write, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, ExitCode } from './errors.js';

/**
 * The one way forgectl creates files (downloads and their FILE.part, extracted entries, plans, exports, token and
 * recovery files), so that a rule fixed once holds everywhere: new files are created exclusively and never through a
 * symbolic link; content files honour the umask, files holding secrets are 0600; whole files are written to a
 * temporary file, fsynced and renamed; every failed write (a full disk) is an error that says so, with what was
 * half-written removed.
 */

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
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'the file is too large for the file system',
    EIO: 'input/output error',
    EEXIST: 'it already exists',
    ELOOP: 'it is a symbolic link',
    ENAMETOOLONG: 'the name is too long',
  };
  return (code && words[code]) ?? (error instanceof Error ? error.message : String(error));
}

/** A local file could not be written: exit 2, one line (`cannot write out.zip: no space left on the device`). */
export class WriteError extends CliError {
  constructor(
    readonly path: string,
    readonly reason: unknown,
    hint?: string,
  ) {
    super(`cannot write ${path}: ${fileProblem(reason)}`, ExitCode.usage, hint ?? hintFor(reason));
    this.name = 'WriteError';
  }
}

function hintFor(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free some space (or write elsewhere) and run the command again; nothing new was left under that name';
  return undefined;
}

/** Who may read a new file: content honours the umask (as curl does); a file holding a secret is the owner's only. */
export type FileKind = 'content' | 'secret';
const modeOf = (kind: FileKind): number => (kind === 'secret' ? 0o600 : 0o666);

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Creates a new file for writing; fails when anything (a file, a planted link) is already there. */
export function createNew(path: string, kind: FileKind, mode = modeOf(kind)): number {
  return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, mode);
}

/** Whether this user owns a file (always true where the platform has no user ids). */
const ownedByMe = (uid: number): boolean => typeof process.getuid !== 'function' || uid === process.getuid();

/**
 * Checks a leftover file of ours before it is reused or removed (FILE.part and its sidecar): it must be a regular
 * file this user owns, not a link. Returns whether it exists.
 */
export function checkOwnFile(path: string, what: string): boolean {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return false;
  }
  if (stat.isSymbolicLink()) throw new CliError(`refusing to use ${path}: it is a symbolic link, not the ${what} forgectl left`, ExitCode.usage, `remove ${path} and run the command again`);
  if (!stat.isFile()) throw new CliError(`refusing to use ${path}: it is not a regular file`, ExitCode.usage, `remove ${path} and run the command again`);
  if (!ownedByMe(stat.uid)) throw new CliError(`refusing to use ${path}: it belongs to another user`, ExitCode.usage, `remove ${path} and run the command again`);
  return true;
}

/** Removes a leftover file of ours (checked as checkOwnFile does). */
export function removeOwnFile(path: string, what: string): void {
  if (checkOwnFile(path, what)) rmSync(path, { force: true });
}

/** Opens a leftover file of ours to append to it (--resume), never through a link; checked again once open. */
export function openOwnForAppend(path: string, what: string): number {
  checkOwnFile(path, what);
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | NOFOLLOW);
  const stat = fstatSync(fd);
  if (!stat.isFile() || !ownedByMe(stat.uid)) {
    closeSync(fd);
    throw new CliError(`refusing to use ${path}: it changed while it was opened`, ExitCode.usage);
  }
  return fd;
}

/** Reads a small file of ours (a sidecar), never through a link; undefined when it is not there or not ours. */
export function readOwnFile(path: string, limit = 64 * 1024): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || !ownedByMe(stat.uid) || stat.size > limit) return undefined;
    const buffer = Buffer.alloc(stat.size);
    const n = readSync(fd, buffer, 0, stat.size, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Whether path is an existing device, FIFO or socket (written to as a stream, never replaced). */
export function isSpecialFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return !stat.isFile() && !stat.isDirectory();
  } catch {
    return false;
  }
}

/** Writes all of data at fd (short writes continued; a failure throws the file system's error). */
export function writeAll(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
}

/**
 * Writes a whole file atomically: a new temporary file beside it (never through a link), fsynced, then renamed over
 * path. On failure the temporary file is removed, path is untouched, and the error says why (WriteError).
 */
export function writeFileAtomically(path: string, data: string | Buffer, kind: FileKind = 'content'): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let fd: number | undefined;
  try {
    fd = createNew(temp, kind);
    writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temp, { force: true });
    throw new WriteError(path, error);
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

const FLUSH_BYTES = 16 * 1024 * 1024;
/** Bytes handed to the file system and not yet written: bounds memory while writes run beside the download. */
const WRITE_AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * Writes chunks to a file in the background, each at its own position (libuv's thread pool), so that the main
 * thread receives and hashes the next bytes meanwhile; and flushes what was written to disk every FLUSH_BYTES, so
 * that the final fsync is short. write() waits only when WRITE_AHEAD_BYTES are pending; finish() waits for all of
 * it and fsyncs. A failed write (a full disk) is thrown as a WriteError by the next write() or by finish().
 * For a device or FIFO (not seekable) the writes go one after another, in order.
 */
export class StreamWriter {
  private pending = 0;
  private unflushed = 0;
  private flushing?: Promise<void>;
  private failure?: Error;
  /** Where the first failed write was to go: the file is cut there, so that it holds no gap (--resume). */
  private failedAt?: number;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly fd: number,
    /** The name errors show. */
    private readonly path: string,
    /** Where the next byte goes; undefined for a device or FIFO (written in order, no positions). */
    private position: number | undefined,
  ) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  async write(chunk: Buffer): Promise<void> {
    this.throwIfFailed();
    if (this.position === undefined) {
      this.pending += chunk.length;
      await new Promise<void>((resolve) => this.writeAt(chunk, null, chunk.length, resolve));
      this.throwIfFailed();
      return;
    }
    this.pending += chunk.length;
    this.writeAt(chunk, this.position, chunk.length);
    this.position += chunk.length;
    while (this.pending > WRITE_AHEAD_BYTES && !this.failure) await this.wait();
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw new WriteError(this.path, this.failure);
  }

  private wait(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Writes chunk at position; `accounted` is what the chunk counted for in `pending` (short writes continue). */
  private writeAt(chunk: Buffer, position: number | null, accounted: number, done?: () => void): void {
    write(this.fd, chunk, 0, chunk.length, position, (error, written) => {
      if (!error && written < chunk.length) return this.writeAt(chunk.subarray(written), position === null ? null : position + written, accounted, done);
      if (error) {
        this.failure ??= error;
        if (position !== null) this.failedAt = Math.min(this.failedAt ?? position, position);
      }
      this.pending -= accounted;
      this.unflushed += accounted;
      if (position !== null && this.unflushed >= FLUSH_BYTES && !this.flushing && !this.failure) {
        this.unflushed = 0;
        this.flushing = new Promise<void>((resolve) => fdatasync(this.fd, () => resolve())).finally(() => (this.flushing = undefined));
      }
      done?.();
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Waits for every write and background flush; then fsyncs (a file) and throws a failed write. */
  async finish(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
    if (this.position !== undefined) {
      try {
        fsyncSync(this.fd);
      } catch (error) {
        throw new WriteError(this.path, error);
      }
    }
  }

  /** Waits for the writes already started (the file must not be closed under them), and cuts off a failed tail. */
  async settle(): Promise<void> {
    while (this.pending > 0) await this.wait();
    await this.flushing;
    if (this.failedAt !== undefined) {
      try {
        ftruncateSync(this.fd, this.failedAt);
      } catch {
        // the file is removed by the caller
      }
    }
  }
}
