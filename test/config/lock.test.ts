import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockFile, startTime, withLock } from '../../src/config/lock.js';
import { tempDir } from '../helpers/cli.js';

describe('lock files', () => {
  it('is exclusive while held and free after release', () => {
    const path = join(tempDir(), 'x.lock');
    const first = new LockFile(path);
    expect(first.tryAcquire()).toBe(true);
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid));
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
    expect(readFileSync(path, 'utf8').split(' ')[0]).toBe(String(process.pid));
  });

  const onLinux = existsSync('/proc/self/stat') && existsSync('/proc/sys/kernel/random/boot_id');
  const boot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();

  it.skipIf(!onLinux)('names its owner by pid, start time and boot, and takes over when any of them differs', () => {
    const path = join(tempDir(), 'who.lock');
    const lock = new LockFile(path);
    expect(lock.tryAcquire()).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(`${process.pid} ${startTime(process.pid)} ${boot()}\n`);
    lock.release();
    // A live pid whose start time differs is another process (the pid was reused): stale.
    writeFileSync(path, `${process.ppid} 1 ${boot()}\n`);
    expect(new LockFile(path).tryAcquire()).toBe(true);
    // The same live process, but written before the machine booted: stale.
    writeFileSync(path, `${process.ppid} ${startTime(process.ppid)} 00000000-0000-0000-0000-000000000000\n`);
    expect(new LockFile(path).tryAcquire()).toBe(true);
    // The same live process in this boot: held.
    writeFileSync(path, `${process.ppid} ${startTime(process.ppid)} ${boot()}\n`);
    expect(new LockFile(path).tryAcquire()).toBe(false);
  });

  it('an empty lock is being written: held while young, stale when old', () => {
    const path = join(tempDir(), 'empty.lock');
    writeFileSync(path, '');
    expect(new LockFile(path).tryAcquire()).toBe(false);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(new LockFile(path).tryAcquire()).toBe(true);
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
