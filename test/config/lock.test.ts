import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockFile, withLock } from '../../src/config/lock.js';
import { tempDir } from '../helpers/cli.js';

describe('lock files', () => {
  it('is exclusive while held and free after release', () => {
    const path = join(tempDir(), 'x.lock');
    const first = new LockFile(path);
    expect(first.tryAcquire()).toBe(true);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.pid));
    expect(new LockFile(path).tryAcquire()).toBe(false);
    first.release();
    expect(existsSync(path)).toBe(false);
    expect(new LockFile(path).tryAcquire()).toBe(true);
  });

  it('takes over the lock of a process that no longer exists', () => {
    const path = join(tempDir(), 'stale.lock');
    writeFileSync(path, '999999999\n');
    const lock = new LockFile(path);
    expect(lock.tryAcquire()).toBe(true);
    expect(readFileSync(path, 'utf8').trim()).toBe(String(process.pid));
  });

  it('withLock waits for a holder and gives up after the timeout', async () => {
    const path = join(tempDir(), 'w.lock');
    const holder = new LockFile(path);
    holder.tryAcquire();
    await expect(withLock(path, 100, () => 'never')).rejects.toThrow(/held by another forgectl process/);
    setTimeout(() => holder.release(), 50);
    await expect(withLock(path, 2000, () => 'ran')).resolves.toBe('ran');
  });
});
