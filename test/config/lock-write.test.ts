import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.js';

/** writeSync fails with ENOSPC while `diskFull` is set: a full disk between the lock's create and its owner line. */
let diskFull = false;
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    if (diskFull) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { LockFile } = await import('../../src/config/lock.js');

describe('a lock whose owner line cannot be written', () => {
  afterEach(() => {
    diskFull = false;
  });

  it('says the disk is full (exit 2, not an internal error) and leaves no empty lock that would block the next run', () => {
    const dir = tempDir();
    const path = join(dir, 'rotate.lock');
    diskFull = true;
    let thrown: unknown;
    try {
      new LockFile(path).tryAcquire();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ exitCode: 2, message: `cannot write ${path}: no space left on the device` });
    expect(readdirSync(dir)).toEqual([]);
    diskFull = false;
    // The next run (the disk freed) takes the lock at once instead of waiting for an empty lock to age out.
    expect(new LockFile(path).tryAcquire()).toBe(true);
    expect(existsSync(path)).toBe(true);
  });
});
