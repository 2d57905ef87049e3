import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDownload } from '../../src/download/engine.js';
import { Io } from '../../src/output/io.js';
import { DownloadResult } from '../../src/output/result.js';
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

  it('writes to a non-terminal stdout and refuses a terminal (exit 2)', async () => {
    const pipe = io(false);
    await runDownload(new DownloadResult(Readable.from([bytes])), pipe.io);
    expect(Buffer.concat(pipe.stdout.data)).toEqual(bytes);
    await expect(runDownload(new DownloadResult(Readable.from([bytes])), io(true).io)).rejects.toMatchObject({ exitCode: 2 });
  });
});
