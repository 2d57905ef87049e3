import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDownload, type DownloadSource } from '../../src/download/engine.js';
import { Io } from '../../src/output/io.js';
import { DownloadResult } from '../../src/download/result.js';
import { tempDir } from '../helpers/cli.js';

function io(tty: boolean) {
  const stdout = Object.assign(new Writable({ write(chunk, _e, cb) { stdout.data.push(Buffer.from(chunk)); cb(); } }), { data: [] as Buffer[], isTTY: tty });
  const stderr = Object.assign(new Writable({ write(_c, _e, cb) { cb(); } }), { isTTY: false });
  return { io: new Io({ stdin: Readable.from([]), stdout, stderr }, { quiet: true, color: false }), stdout };
}

async function* failing(): AsyncGenerator<Buffer> {
  yield Buffer.from('partial');
  throw new Error('connection reset');
}

describe('downloads', () => {
  const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);

  it('writes to --output-file through a temporary file, verifying the checksum', async () => {
    const dir = tempDir();
    const file = join(dir, 'out.bin');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await runDownload(new DownloadResult(Readable.from([bytes]), { outputFile: file, sha256 }), io(false).io);
    expect(readFileSync(file)).toEqual(bytes);
    expect(readdirSync(dir)).toEqual(['out.bin']);
  });

  it('leaves nothing behind when the stream fails or the checksum does not match', async () => {
    const dir = tempDir();
    const file = join(dir, 'out.bin');
    await expect(runDownload(new DownloadResult(failing(), { outputFile: file }), io(false).io)).rejects.toThrow(/interrupted after 7 bytes: connection reset/);
    expect(readdirSync(dir).sort()).toEqual(['out.bin.part', 'out.bin.part.json']);
    rmSync(`${file}.part`);
    rmSync(`${file}.part.json`);
    await expect(runDownload(new DownloadResult(Readable.from([bytes]), { outputFile: file, sha256: '0'.repeat(64) }), io(false).io)).rejects.toThrow(/checksum mismatch/);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('while the bytes arrive, an interruption would say where they are; a body read once cannot be resumed', async () => {
    const file = join(tempDir(), 'out.bin');
    let release!: () => void;
    async function* held(): AsyncGenerator<Buffer> {
      yield Buffer.from('partial');
      await new Promise<void>((resolve) => (release = resolve));
      yield Buffer.from('rest');
    }
    const target = io(false).io;
    const running = runDownload(new DownloadResult(held(), { outputFile: file }), target);
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(target.state.interruptNote).toBe(`the bytes so far are in ${file}.part; run the same command again to start over`);
    release();
    await running;
    expect(target.state.interruptNote).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('partialrest');
    await expect(runDownload(new DownloadResult(failing(), { outputFile: file }), io(false).io)).rejects.toMatchObject({ hint: `the bytes so far are in ${file}.part; run the same command again to start over` });
    rmSync(`${file}.part`);
    const request = { open: async () => ({ status: 200, headers: {}, header: () => undefined, body: failing(), text: async () => '', buffer: async () => Buffer.alloc(0) }) } as unknown as DownloadSource;
    await expect(runDownload(new DownloadResult(request, { outputFile: file }), io(false).io)).rejects.toMatchObject({ hint: `the bytes so far are in ${file}.part; run the same command with --resume to continue` });
  });

  it('writes to a non-terminal stdout and refuses a terminal (exit 2)', async () => {
    const pipe = io(false);
    await runDownload(new DownloadResult(Readable.from([bytes])), pipe.io);
    expect(Buffer.concat(pipe.stdout.data)).toEqual(bytes);
    await expect(runDownload(new DownloadResult(Readable.from([bytes])), io(true).io)).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('downloads onto a device', () => {
  it('-O /dev/full: the failed write is an error (exit 2), and the device is written to, never replaced', async () => {
    const { statSync } = await import('node:fs');
    const error = await runDownload(new DownloadResult(Readable.from([Buffer.alloc(70_000)]), { outputFile: '/dev/full' }), io(false).io).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, message: 'cannot write /dev/full: no space left on the device' });
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  it('-O /dev/null: the bytes are streamed into it and checked', async () => {
    const sha256 = createHash('sha256').update('data').digest('hex');
    const record = await runDownload(new DownloadResult(Readable.from([Buffer.from('data')]), { outputFile: '/dev/null', sha256 }), io(false).io);
    expect(record).toMatchObject({ path: '/dev/null', bytes: 4, sha256 });
  });
});
