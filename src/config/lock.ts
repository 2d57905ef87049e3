import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { WriteError } from '../write.js';

/**
 * An exclusive lock file created with O_EXCL. It holds one line, `<pid> <start time> <boot id>`, which names its
 * owner across pid reuse: a lock whose owner is gone is stale and taken over, and "gone" includes a pid that now
 * belongs to another process (its start time differs) and a lock written before the machine booted (its boot id
 * differs) — after a reboot or a container restart the pid of a leftover lock often belongs to someone else.
 * Older readers that take only the leading pid still understand the line.
 *
 * Taking over is guarded by a second O_EXCL file, so two processes cannot both steal the same stale lock.
 */
export class LockFile {
  private held = false;
  constructor(readonly path: string) {}

  /** Returns false when another live process holds the lock. */
  tryAcquire(): boolean {
    if (this.create(this.path)) return (this.held = true);
    const seen = readLock(this.path);
    if (seen === undefined) return this.create(this.path) && (this.held = true); // released in between
    if (!isStale(seen)) return false;
    const guard = `${this.path}.takeover`;
    if (!this.create(guard)) {
      const guardOwner = readLock(guard);
      if (guardOwner !== undefined && !isStale(guardOwner)) return false;
      rmSync(guard, { force: true });
      if (!this.create(guard)) return false;
    }
    try {
      // Under the guard, nobody else can replace the lock; it may only have been released or still be stale.
      const again = readLock(this.path);
      if (again !== undefined && !isStale(again)) return false;
      rmSync(this.path, { force: true });
      return this.create(this.path) && (this.held = true);
    } finally {
      rmSync(guard, { force: true });
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    if (readLock(this.path)?.text === ownLine()) rmSync(this.path, { force: true });
  }

  /** O_EXCL create with our owner line, written in one call right after the create; removed again when that fails. */
  private create(path: string): boolean {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      writeSync(fd, `${ownLine()}\n`);
    } catch (error) {
      // A lock left empty (a full disk) would read as held, and stop every run after this one until it ages out.
      closeSync(fd);
      rmSync(path, { force: true });
      throw new WriteError(path, error);
    }
    closeSync(fd);
    return true;
  }
}

/**
 * An empty lock file is one whose owner has created it and not yet written its line (microseconds), or one left by
 * a crash in that instant. Younger than this it counts as held; older, as stale.
 */
export const EMPTY_LOCK_GRACE_MS = 10_000;

interface LockContent {
  text: string;
  ageMs: number;
}

function readLock(path: string): LockContent | undefined {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return { text, ageMs: Date.now() - statSync(path).mtimeMs };
  } catch {
    return undefined;
  }
}

/** A lock file whose owner is gone (`doctor` reports it, and `doctor --fix` removes it); false when unreadable. */
export function lockIsStale(path: string): boolean {
  const seen = readLock(path);
  return seen !== undefined && isStale(seen);
}

/** The owner of a lock is gone: dead, replaced by another process under the same pid, or from an earlier boot. */
function isStale(lock: LockContent): boolean {
  const [pidText, start, boot] = lock.text.split(/\s+/);
  const pid = Number.parseInt(pidText ?? '', 10);
  if (!lock.text) return lock.ageMs > EMPTY_LOCK_GRACE_MS;
  if (!Number.isInteger(pid) || pid <= 0) return true;
  const current = bootId();
  if (boot && boot !== '-' && current && boot !== current) return true;
  if (pid === process.pid) return start !== undefined && start !== '-' && start !== startTime(pid);
  if (!isAlive(pid)) return true;
  if (start && start !== '-') {
    const actual = startTime(pid);
    if (actual !== undefined && actual !== start) return true;
  }
  return false;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When a process started, in clock ticks since boot (Linux /proc); undefined where that cannot be read. */
export function startTime(pid: number): string | undefined {
  try {
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let cachedBootId: string | null | undefined;
function bootId(): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId ?? undefined;
}

let cachedOwnLine: string | undefined;
/** This process as a lock owner: `<pid> <start time> <boot id>`, with `-` for what the platform cannot tell. */
function ownLine(): string {
  cachedOwnLine ??= `${process.pid} ${startTime(process.pid) ?? '-'} ${bootId() ?? '-'}`;
  return cachedOwnLine;
}

/** Runs fn while holding the lock, waiting up to timeoutMs for it. */
export async function withLock<T>(path: string, timeoutMs: number, fn: () => Promise<T> | T): Promise<T> {
  const lock = new LockFile(path);
  const deadline = Date.now() + timeoutMs;
  while (!lock.tryAcquire()) {
    if (Date.now() > deadline) throw new Error(`could not lock ${path}: held by another forgectl process`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
