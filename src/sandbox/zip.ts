import { createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * Zip archives the sandbox serves (job artifacts) without holding them in memory: an archive is a list of entries,
 * small ones with their bytes (deflated) and large ones generated from a seed (stored), laid out once and then read
 * as any byte range. Generated content is deterministic, so a resumed download continues the same bytes.
 */

export interface ZipEntrySource {
  /** The name inside the archive, as is (tests use crafted names such as ../../x). */
  name: string;
  /** Literal content. */
  data?: Buffer;
  /** Content of `size` bytes generated from `seed` (incompressible; for large artifacts). */
  generated?: { size: number; seed: string };
  /** Unix mode (default 0o100644; 0o120777 makes a symbolic link whose target is the content). */
  mode?: number;
}

interface Part {
  offset: number;
  length: number;
  read(from: number, to: number): Iterable<Buffer>;
}

export interface ZipLayout {
  size: number;
  /** Changes whenever the content does: the ETag of the archive. */
  etag: string;
  parts: Part[];
}

/** The largest archive this writer lays out (no Zip64). */
export const MAX_ZIP_SIZE = 0xffff_fff0;
const BLOCK = 64 * 1024;
const DOS_TIME = 0;
const DOS_DATE = (2025 - 1980) << 9 | 1 << 5 | 1;

const blocks = new Map<string, Buffer>();
/** 64 KiB of pseudo-random bytes from a seed; generated content repeats it. */
function blockOf(seed: string): Buffer {
  let block = blocks.get(seed);
  if (!block) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < BLOCK / 32; i++) chunks.push(createHash('sha256').update(`${seed}:${i}`).digest());
    block = Buffer.concat(chunks);
    blocks.set(seed, block);
  }
  return block;
}

function* generatedRange(seed: string, from: number, to: number): Iterable<Buffer> {
  const block = blockOf(seed);
  for (let at = from; at < to; ) {
    const within = at % BLOCK;
    const take = Math.min(BLOCK - within, to - at);
    yield block.subarray(within, within + take);
    at += take;
  }
}

const crcs = new Map<string, number>();
function generatedCrc(seed: string, size: number): number {
  const key = `${seed}:${size}`;
  let crc = crcs.get(key);
  if (crc === undefined) {
    crc = 0;
    for (const chunk of generatedRange(seed, 0, size)) crc = crc32(chunk, crc);
    crcs.set(key, crc);
  }
  return crc;
}

function literal(buffer: Buffer, offset: number): Part {
  return { offset, length: buffer.length, read: (from, to) => [buffer.subarray(from, to)] };
}

interface EntryFields {
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  nameLength: number;
}

/**
 * The fields a local header and a central directory record share, in the same order (version needed, flags with
 * UTF-8 names, method, DOS time and date, CRC-32, sizes, name length): at offset 4 of the one, 6 of the other.
 */
function writeEntryFields(header: Buffer, at: number, fields: EntryFields): void {
  header.writeUInt16LE(20, at);
  header.writeUInt16LE(0x0800, at + 2);
  header.writeUInt16LE(fields.method, at + 4);
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(fields.crc >>> 0, at + 10);
  header.writeUInt32LE(fields.compressedSize, at + 14);
  header.writeUInt32LE(fields.size, at + 18);
  header.writeUInt16LE(fields.nameLength, at + 22);
}

/** Lays out an archive of these entries (CRCs of generated content are computed once and cached). */
export function zipLayout(entries: ZipEntrySource[]): ZipLayout {
  const parts: Part[] = [];
  const central: Buffer[] = [];
  const hash = createHash('sha256');
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    let method = 0;
    let crc: number;
    let size: number;
    let body: Part;
    const headerLength = 30 + name.length;
    if (entry.generated) {
      const { seed, size: length } = entry.generated;
      size = length;
      crc = generatedCrc(seed, length);
      body = { offset: offset + headerLength, length, read: (from, to) => generatedRange(seed, from, to) };
      hash.update(`${entry.name}\0g:${seed}:${length}\0`);
    } else {
      const data = entry.data ?? Buffer.alloc(0);
      size = data.length;
      crc = crc32(data);
      const deflated = deflateRawSync(data);
      const stored = deflated.length >= data.length;
      method = stored ? 0 : 8;
      body = literal(stored ? data : deflated, offset + headerLength);
      hash.update(`${entry.name}\0`).update(data);
    }
    const fields: EntryFields = { method, crc, compressedSize: body.length, size, nameLength: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, fields);
    parts.push(literal(Buffer.concat([local, name]), offset), body);

    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(0x0314, 4);
    writeEntryFields(record, 6, fields);
    record.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += headerLength + body.length;
    if (offset > MAX_ZIP_SIZE) throw new Error('artifact archive too large for the sandbox (4 GiB at most)');
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  parts.push(literal(Buffer.concat([directory, end]), offset));
  const size = offset + directory.length + end.length;
  return { size, etag: `"${hash.digest('hex').slice(0, 32)}"`, parts };
}

/** The bytes [start, end) of an archive, in chunks of at most 64 KiB. */
export function* readZip(layout: ZipLayout, start = 0, end = layout.size): Iterable<Buffer> {
  for (const part of layout.parts) {
    const from = Math.max(start, part.offset);
    const to = Math.min(end, part.offset + part.length);
    if (from < to) yield* part.read(from - part.offset, to - part.offset);
  }
}

/** One entry's content (what the single-file endpoints serve): literal data, or the generated bytes. */
export function* entryContent(entry: ZipEntrySource): Iterable<Buffer> {
  if (entry.generated) yield* generatedRange(entry.generated.seed, 0, entry.generated.size);
  else yield entry.data ?? Buffer.alloc(0);
}

export const entrySize = (entry: ZipEntrySource): number => entry.generated?.size ?? entry.data?.length ?? 0;
