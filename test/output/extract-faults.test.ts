/**
 * Damaged and hostile archives: every one is refused with a damaged-archive or unsafe-archive error before anything
 * is written, and a failed extraction leaves the folder as it was.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
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

/**
 * A zip as the service's runner writes artifacts (Go's archive/zip): the data streamed after a local header of zeros
 * and followed by a data descriptor, the Unix uid/gid and an extended timestamp in both headers, and the library's
 * own timestamp after them.
 */
function streamedZip(entries: Array<{ name: string; data: Buffer; mode: number }>): Buffer {
  const u16 = (value: number) => Buffer.from([value & 0xff, value >> 8]);
  const u32 = (value: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(value >>> 0); return b; };
  const field = (id: number, data: Buffer) => Buffer.concat([u16(id), u16(data.length), data]);
  const timestamp = field(0x5455, Buffer.concat([Buffer.from([1]), u32(1_750_000_000)]));
  const extra = Buffer.concat([field(0x7875, Buffer.concat([Buffer.from([1, 4]), u32(1000), Buffer.from([4]), u32(1000)])), timestamp, timestamp]);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, mode } of entries) {
    const deflated = mode & 0o040000 ? Buffer.alloc(0) : deflateRawSync(data);
    const shared = (crc: number, compressed: number, size: number) => Buffer.concat([u16(20), u16(0x0808), u16(8), u16(0x6000), u16(0x5a21), u32(crc), u32(compressed), u32(size), u16(Buffer.byteLength(name))]);
    const local = Buffer.concat([u32(0x04034b50), shared(0, 0, 0), u16(extra.length), Buffer.from(name), extra, deflated, u32(0x08074b50), u32(crc32(data)), u32(deflated.length), u32(data.length)]);
    centrals.push(Buffer.concat([u32(0x02014b50), u16(0x0314), shared(crc32(data), deflated.length, data.length), u16(extra.length), u16(0), u16(0), u16(0), u32((mode << 16) >>> 0), u32(offset), Buffer.from(name), extra]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.concat([u32(0x06054b50), u16(0), u16(0), u16(entries.length), u16(entries.length), u32(directory.length), u32(offset), u16(0)]);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * Where a changed byte cannot be told from the original: what zip records once (each central record's writer version
 * and attributes), and the last byte of a deflated entry (its unused padding bits).
 */
function uncheckable(archive: Buffer): Set<number> {
  const positions = new Set<number>();
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  for (let at = archive.readUInt32LE(end + 16); at < end; at += 46 + archive.readUInt16LE(at + 28) + archive.readUInt16LE(at + 30) + archive.readUInt16LE(at + 32)) {
    for (const [from, length] of [[4, 2], [36, 2], [38, 4]]) for (let i = 0; i < length; i++) positions.add(at + from + i);
    const local = archive.readUInt32LE(at + 42);
    const compressed = archive.readUInt32LE(at + 20);
    if (archive.readUInt16LE(at + 10) === 8 && compressed) positions.add(local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28) + compressed - 1);
  }
  return positions;
}

/** What an extraction leaves: every path with its bytes (folders as null). */
function tree(dir: string): Record<string, string | null> {
  const found: Record<string, string | null> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found[path.slice(dir.length + 1)] = entry.isDirectory() ? null : readFileSync(path, 'latin1');
  }
  return found;
}

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

  it('a byte flipped anywhere in a small artifacts zip is refused, save where zip records a thing once or a deflate stream pads', async () => {
    const files = [
      { name: 'dist/', data: Buffer.alloc(0), mode: 0o040755 },
      { name: 'dist/app.js', data: Buffer.from('console.log("app");\n'.repeat(8)), mode: 0o100644 },
      { name: 'dist/run', data: Buffer.from('#!/bin/sh\nexec node app.js\n'), mode: 0o100755 },
    ];
    const archives = {
      sandbox: zip(files.map(({ name, data, mode }) => ({ name, data, mode }))),
      streamed: streamedZip(files),
    };
    for (const [kind, good] of Object.entries(archives)) {
      const dir = tempDir();
      const original = join(dir, 'original');
      await extract(saved(good), original);
      const expected = tree(original);
      expect(Object.keys(expected).sort(), kind).toEqual(['dist', 'dist/app.js', 'dist/run']);
      const once = uncheckable(good);
      const accepted: string[] = [];
      let refused = 0;
      for (let at = 0; at < good.length; at++) {
        for (const mask of [0x01, 0x10, 0x80, 0xff]) {
          const bad = Buffer.from(good);
          bad[at] ^= mask;
          const file = saved(bad);
          const out = join(dir, `out-${at}-${mask}`);
          const error = await extract(file, out).then(() => undefined, (e: Error & { exitCode?: number }) => e);
          if (error) {
            expect(error.exitCode, `${kind}: byte ${at} ^ ${mask}: ${error.message}`).toBe(8);
            expect(existsSync(out)).toBe(false);
            refused++;
            continue;
          }
          accepted.push(`${at}^${mask}`);
          // Accepted only where a change cannot be told, and then names and contents are the original's.
          expect(once.has(at), `${kind}: byte ${at} ^ ${mask} was accepted`).toBe(true);
          expect(tree(out), `${kind}: byte ${at} ^ ${mask}`).toEqual(expected);
          expect(statSync(file).size).toBe(good.length);
        }
      }
      // 8 bytes a record of 3 entries (the writer's version, the internal and external attributes), 2 padding bytes.
      expect(new Set(accepted.map((flip) => Number(flip.split('^')[0]))).size, kind).toBeLessThanOrEqual(3 * 8 + 2);
      expect(refused + accepted.length).toBe(good.length * 4);
    }
  }, 120_000);

  it('checks every entry\'s CRC-32 again as it is extracted (the file may change after its inspection)', async () => {
    const good = zip([{ name: 'stored.bin', data: Buffer.from([0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4]) }]);
    const inspected = await inspectArchive(saved(good), { limits: false });
    const bad = Buffer.from(good);
    bad[30 + 'stored.bin'.length + 2] ^= 0x01;
    const out = join(tempDir(), 'out');
    await expect(extractArchive(saved(bad), out, { stripComponents: 0, warn: () => undefined, inspected })).rejects.toMatchObject({ exitCode: 8, message: 'the zip archive is damaged: "stored.bin" fails its CRC-32 check' });
    expect(existsSync(out)).toBe(false);
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
