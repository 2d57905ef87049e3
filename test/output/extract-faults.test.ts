/**
 * Damaged and hostile archives: every one is refused with a damaged-archive or unsafe-archive error before anything
 * is written, and a failed extraction leaves the folder as it was.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMITS, extractArchive, inspectArchive } from '../../src/download/extract.js';
import { readZip, zipLayout, type ZipEntrySource } from '../../src/sandbox/zip.js';
import { tempDir } from '../helpers/cli.js';

const zip = (entries: ZipEntrySource[]): Buffer => Buffer.concat([...readZip(zipLayout(entries))]);
const text = (name: string, content: string): ZipEntrySource => ({ name, data: Buffer.from(content) });

/** A tar archive (ustar headers) of these files, as tar writes it. */
async function tar(files: Array<{ name: string; content: string; type?: 'file' | 'directory' }>): Promise<Buffer> {
  const tarStream = await import('tar-stream');
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const file of files) {
    if (file.type === 'directory') pack.entry({ name: file.name, type: 'directory' });
    else pack.entry({ name: file.name, type: 'file' }, file.content);
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

function saved(data: Buffer, name = 'archive'): string {
  const file = join(tempDir(), name);
  writeFileSync(file, data);
  return file;
}

const extract = (file: string, dir: string, limits = EXTRACT_LIMITS) => extractArchive(file, dir, { stripComponents: 0, warn: () => undefined, limits });

describe('archives are checked whole before anything is written', () => {
  it('a flipped byte in any zip entry fails its CRC-32 (extraction and plain verification)', async () => {
    const good = zip([text('a.txt', 'alpha\n'.repeat(50)), text('b.txt', 'bravo\n'.repeat(50))]);
    expect(await inspectArchive(saved(good), { limits: false })).toMatchObject({ format: 'zip', entries: 2 });
    // Every byte of the first entry's data: the flip is caught (by its CRC, or as a damaged deflate stream).
    const dataStart = 30 + 'a.txt'.length;
    for (const at of [dataStart, dataStart + 3, dataStart + 7]) {
      const bad = Buffer.from(good);
      bad[at] ^= 0x20;
      const out = join(tempDir(), 'out');
      await expect(extract(saved(bad), out)).rejects.toMatchObject({ exitCode: 8, message: expect.stringMatching(/zip archive is damaged/) });
      expect(existsSync(out)).toBe(false);
    }
  });

  it('a truncated or corrupt tar.gz is a damaged-archive error, and the folder is left as it was', async () => {
    const archive = gzipSync(await tar([{ name: 'top/a.txt', content: 'x'.repeat(5000) }, { name: 'top/b.txt', content: 'y'.repeat(5000) }]));
    for (const bad of [archive.subarray(0, archive.length - 9), archive.subarray(0, archive.length >> 1), Buffer.concat([archive.subarray(0, archive.length - 8), Buffer.alloc(8)])]) {
      const out = tempDir();
      await expect(extract(saved(bad), out)).rejects.toMatchObject({ exitCode: 8, message: expect.stringMatching(/tar\.gz archive is damaged/) });
      expect(readdirSync(out)).toEqual([]);
    }
  });

  it('checks the entry count from the central directory first, and the unpacked size and ratio before writing', async () => {
    const many = saved(zip(Array.from({ length: 30 }, (_, i) => text(`f${i}`, ''))));
    const out = join(tempDir(), 'out');
    await expect(extract(many, out, { ...EXTRACT_LIMITS, entries: 10 })).rejects.toMatchObject({ exitCode: 8, message: 'the archive has more than 10 entries; nothing was extracted' });
    expect(existsSync(out)).toBe(false);
    // 4 MiB of zeros deflate to a few KiB: past the ratio once it unpacks to more than ratioFrom.
    const bomb = saved(zip([{ name: 'zeros', data: Buffer.alloc(4 * 1024 * 1024) }]));
    await expect(extract(bomb, out, { ...EXTRACT_LIMITS, ratioFrom: 1024 * 1024 })).rejects.toMatchObject({ exitCode: 8, message: expect.stringMatching(/unpacks to more than 200 times its size/) });
    await expect(extract(bomb, out, { ...EXTRACT_LIMITS, bytes: 1024 * 1024 })).rejects.toMatchObject({ message: expect.stringMatching(/unpacks to more than 1,048,576 bytes/) });
    expect(existsSync(out)).toBe(false);
    // Within the limits the same archive unpacks.
    expect(await extract(bomb, out)).toBe(1);
  });

  it('refuses names with control or text-direction characters, shown escaped', async () => {
    for (const name of ['evil\x1b[31m.txt', 'bell\x07', 'invoice\u202Egpj.exe']) {
      const out = join(tempDir(), 'out');
      const error = await extract(saved(zip([text('fine.txt', 'ok'), text(name, 'x')])), out).catch((e: Error) => e);
      expect(error).toMatchObject({ exitCode: 8, message: expect.stringMatching(/^refusing to extract ".*": the name holds control or text-direction characters/) });
      // eslint-disable-next-line no-control-regex
      expect((error as Error).message).not.toMatch(/[\x00-\x1f\u202e]/);
      expect(existsSync(out)).toBe(false);
    }
  });

  it('a folder and a file of the same name is said as such', async () => {
    const out = tempDir();
    const archive = saved(await tar([{ name: 'same', content: '', type: 'directory' }, { name: 'same', content: 'file' }]));
    await expect(extract(archive, out)).rejects.toMatchObject({ exitCode: 8, message: 'the archive has both a folder and a file named "same"; nothing was extracted' });
    expect(readdirSync(out)).toEqual([]);
  });

  it('a folder that was not empty keeps what it had only when extraction was refused up front', async () => {
    const out = tempDir();
    mkdirSync(join(out, 'kept'));
    await expect(extract(saved(Buffer.from('not an archive at all')), out)).rejects.toMatchObject({ exitCode: 8, message: expect.stringMatching(/not a zip or tar archive/) });
    expect(readdirSync(out)).toEqual(['kept']);
  });
});
