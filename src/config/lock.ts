import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/**
 * An exclusive lock file created with O_EXCL, holding the owner's pid. A lock whose owner process no longer exists
 * is stale and taken over; taking over is itself guarded by a second O_EXCL file so two processes cannot both
 * steal the same stale lock.
 */
export class LockFile {
  private held = false;
  constructor(readonly path: string) {}

  /** Returns false when another live process holds the lock. */
  tryAcquire(): boolean {
    if (this.create(this.path)) return (this.held = true);
    const owner = this.ownerPid();
    if (owner !== undefined && isAlive(owner)) return false;
    // Stale (dead owner or unreadable): one process at a time may replace it.
    const guard = `${this.path}.takeover`;
    if (!this.create(guard)) {
      const guardOwner = readPid(guard);
      if (guardOwner !== undefined && isAlive(guardOwner)) return false;
      rmSync(guard, { force: true });
      if (!this.create(guard)) return false;
    }
    try {
      const again = this.ownerPid();
      if (again !== undefined && again !== owner && isAlive(again)) return false;
      rmSync(this.path, { force: true });
      if (this.create(this.path)) return (this.held = true);
      return false;
    } finally {
      rmSync(guard, { force: true });
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    if (this.ownerPid() === process.pid) rmSync(this.path, { force: true });
  }

  private ownerPid(): number | undefined {
    return readPid(this.path);
  }

  private create(path: string): boolean {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return true;
  }
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
