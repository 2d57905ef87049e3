import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CliError, ExitCode } from '../errors.js';
import { shownName } from './names.js';

/**
 * A zip file's structure, checked byte for byte before its entries are read: every local header agrees with its
 * central directory record (version needed, flags, method, time and date, CRC-32, sizes, name, the extra fields
 * both carry), the entries with their data descriptors, the central directory and its end records (Zip64 too) tile
 * the file with no gap, overlap or byte left over, and the end record's counts, size and offset are the ones found.
 * Reading the entries then checks every CRC-32. A byte changed in transit is caught wherever zip records a thing
 * twice or checks it; what zip records once (a comment, the writer's version, permission bits) cannot be checked.
 */
export function checkZipStructure(file: string): void {
  const fd = openSync(file, 'r');
  try {
    const zip = new ZipFile(fd, fstatSync(fd).size);
    zip.checkEntries(zip.directory());
  } finally {
    closeSync(fd);
  }
}

const SIGNATURE = { local: 0x04034b50, central: 0x02014b50, end: 0x06054b50, end64: 0x06064b50, locator64: 0x07064b50, descriptor: 0x08074b50 };
const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
/** The largest central directory read (far beyond any artifact's: 200,000 entries with long names). */
const MAX_DIRECTORY = 256 * 1024 * 1024;
const ZIP64_EXTRA = 0x0001;
const EXTENDED_TIMESTAMP = 0x5455;
/** Flag bit 3: CRC-32 and sizes follow the data in a data descriptor (the local header may hold zeros). */
const HAS_DESCRIPTOR = 0x0008;

function damaged(what: string): CliError {
  return new CliError(`the zip archive is damaged: ${what}`, ExitCode.server);
}

interface Extra {
  id: number;
  data: Buffer;
}

/** An extra field's blocks; their lengths must add up to the field's exactly. */
function extras(field: Buffer, where: string): Extra[] {
  const blocks: Extra[] = [];
  for (let at = 0; at < field.length; ) {
    if (at + 4 > field.length) throw damaged(`the extra field of ${where} is cut short`);
    const length = field.readUInt16LE(at + 2);
    if (at + 4 + length > field.length) throw damaged(`the extra field of ${where} is cut short`);
    blocks.push({ id: field.readUInt16LE(at), data: field.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return blocks;
}

/** A central directory record, its Zip64 values resolved. */
interface Entry {
  name: string;
  nameBytes: Buffer;
  /** Version needed, flags, method, time, date, CRC-32, sizes and name length: 24 bytes a local header repeats. */
  shared: Buffer;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  extras: Extra[];
  zip64: boolean;
}

/** The values a Zip64 extra field holds for the 32-bit fields set to all ones, in the order zip lists them. */
function zip64Values(blocks: Extra[], wanted: boolean[], where: string): number[] {
  const data = blocks.find((block) => block.id === ZIP64_EXTRA)?.data;
  const values: number[] = [];
  let at = 0;
  for (const want of wanted) {
    if (!want) continue;
    if (!data || at + 8 > data.length) throw damaged(`${where} lacks the Zip64 sizes its header announces`);
    values.push(Number(data.readBigUInt64LE(at)));
    at += 8;
  }
  return values;
}

class ZipFile {
  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {}

  private read(at: number, length: number, what: string): Buffer {
    if (at < 0 || at + length > this.size) throw damaged(`${what} lies past the end of the file (cut short?)`);
    const buffer = Buffer.alloc(length);
    for (let got = 0; got < length; ) {
      const n = readSync(this.fd, buffer, got, length - got, at + got);
      if (n === 0) throw damaged(`${what} lies past the end of the file (cut short?)`);
      got += n;
    }
    return buffer;
  }

  /** The end record: the last one whose comment runs exactly to the end of the file. */
  private end(): { at: number; record: Buffer } {
    const tailLength = Math.min(this.size, 22 + MAX16);
    const tail = this.read(this.size - tailLength, tailLength, 'the end of the archive');
    for (let at = tailLength - 22; at >= 0; at--) {
      if (tail.readUInt32LE(at) === SIGNATURE.end && tail.readUInt16LE(at + 20) === tailLength - at - 22) {
        return { at: this.size - tailLength + at, record: tail.subarray(at, at + 22) };
      }
    }
    throw damaged('its end record is missing (cut short, or not a zip file)');
  }

  /** Where the central directory is, and how many records it holds, from the end records (Zip64 when present). */
  private layout(): { offset: number; length: number; entries: number } {
    const { at, record } = this.end();
    const entries = { disk: record.readUInt16LE(8), total: record.readUInt16LE(10) };
    let found = { disk: record.readUInt16LE(4), directoryDisk: record.readUInt16LE(6), entries: entries.total, length: record.readUInt32LE(12), offset: record.readUInt32LE(16), ends: at };
    if (entries.disk !== entries.total) throw damaged(`its end record counts ${entries.disk} and ${entries.total} entries`);
    const locator = at >= 20 ? this.read(at - 20, 20, 'the Zip64 end locator') : undefined;
    if (locator?.readUInt32LE(0) === SIGNATURE.locator64) {
      const end64At = Number(locator.readBigUInt64LE(8));
      if (locator.readUInt32LE(4) !== 0 || locator.readUInt32LE(16) !== 1) throw damaged('its Zip64 end locator names another disk');
      const end64 = this.read(end64At, 56, 'the Zip64 end record');
      if (end64.readUInt32LE(0) !== SIGNATURE.end64) throw damaged('the Zip64 end record is not where its locator says');
      if (end64At + 12 + Number(end64.readBigUInt64LE(4)) !== at - 20) throw damaged('the Zip64 end record does not end where its locator begins');
      const wide = { disk: end64.readUInt32LE(16), directoryDisk: end64.readUInt32LE(20), entries: Number(end64.readBigUInt64LE(32)), length: Number(end64.readBigUInt64LE(40)), offset: Number(end64.readBigUInt64LE(48)), ends: end64At };
      if (Number(end64.readBigUInt64LE(24)) !== wide.entries) throw damaged('its Zip64 end record counts entries twice, differently');
      // The 32-bit fields say all ones (or the same value) where the Zip64 record holds the value.
      const agrees = (narrow: number, value: number, ones: number) => narrow === ones || narrow === value;
      if (!agrees(found.entries, wide.entries, MAX16) || !agrees(found.length, wide.length, MAX32) || !agrees(found.offset, wide.offset, MAX32)) {
        throw damaged('its end record and Zip64 end record disagree');
      }
      found = wide;
    }
    if (found.disk !== 0 || found.directoryDisk !== 0) throw damaged('its end record names another disk of a split archive');
    if (found.offset + found.length !== found.ends) throw damaged('its central directory does not end where the end record begins');
    return found;
  }

  /** The central directory's records, each checked for its own consistency; exactly as many as the end record says. */
  directory(): { entries: Entry[]; offset: number } {
    const { offset, length, entries: count } = this.layout();
    if (length > MAX_DIRECTORY) throw damaged(`its central directory is larger than ${MAX_DIRECTORY / 1024 ** 2} MiB`);
    const data = this.read(offset, length, 'the central directory');
    const entries: Entry[] = [];
    let at = 0;
    while (at < data.length) {
      const where = `central directory record ${entries.length + 1}`;
      if (at + 46 > data.length || data.readUInt32LE(at) !== SIGNATURE.central) throw damaged(`${where} is not a central directory record`);
      const nameLength = data.readUInt16LE(at + 28);
      const extraLength = data.readUInt16LE(at + 30);
      const next = at + 46 + nameLength + extraLength + data.readUInt16LE(at + 32);
      if (next > data.length) throw damaged(`${where} runs past the central directory`);
      entries.push(this.entry(data.subarray(at, next), where));
      at = next;
    }
    if (entries.length !== count) throw damaged(`its end record counts ${count} entries, its central directory holds ${entries.length}`);
    return { entries, offset };
  }

  private entry(record: Buffer, where: string): Entry {
    const nameBytes = record.subarray(46, 46 + record.readUInt16LE(28));
    const blocks = extras(record.subarray(46 + nameBytes.length, 46 + nameBytes.length + record.readUInt16LE(30)), where);
    const raw = { size: record.readUInt32LE(24), compressedSize: record.readUInt32LE(20), offset: record.readUInt32LE(42), disk: record.readUInt16LE(34) };
    const wanted = [raw.size === MAX32, raw.compressedSize === MAX32, raw.offset === MAX32, raw.disk === MAX16];
    const wide = zip64Values(blocks, wanted, where);
    const take = (want: boolean, value: number) => (want ? wide.shift()! : value);
    const size = take(wanted[0], raw.size);
    const compressedSize = take(wanted[1], raw.compressedSize);
    const offset = take(wanted[2], raw.offset);
    if (take(wanted[3], raw.disk) !== 0) throw damaged(`${where} names another disk of a split archive`);
    const name = nameBytes.toString((record.readUInt16LE(8) & 0x0800) !== 0 ? 'utf8' : 'latin1');
    checkFileType(record.readUInt32LE(38) >>> 16, name);
    return { name, nameBytes, shared: record.subarray(6, 30), flags: record.readUInt16LE(8), crc: record.readUInt32LE(16), compressedSize, size, offset, extras: blocks, zip64: wanted.some(Boolean) };
  }

  /** Each entry's local header, data and data descriptor, in the order they lie, from the start of the file to the central directory. */
  checkEntries({ entries, offset: directoryAt }: { entries: Entry[]; offset: number }): void {
    const ordered = [...entries].sort((a, b) => a.offset - b.offset);
    let expected = 0;
    ordered.forEach((entry, i) => {
      if (entry.offset !== expected) throw damaged(`${shownName(entry.name)} does not start where the ${i ? 'entry before it ends' : 'file begins'}`);
      const dataEnd = this.local(entry);
      const next = i + 1 < ordered.length ? ordered[i + 1].offset : directoryAt;
      expected = (entry.flags & HAS_DESCRIPTOR) !== 0 ? this.descriptor(entry, dataEnd, next) : dataEnd;
    });
    if (expected !== directoryAt) throw damaged(`the last entry does not end where the central directory begins`);
  }

  /** Checks a local header against its central record; returns where the entry's data ends. */
  private local(entry: Entry): number {
    const where = `the local header of ${shownName(entry.name)}`;
    const header = this.read(entry.offset, 30, where);
    if (header.readUInt32LE(0) !== SIGNATURE.local) throw damaged(`${where} is not where the central directory says`);
    const shared = header.subarray(4, 28);
    const rest = this.read(entry.offset + 30, shared.readUInt16LE(22) + header.readUInt16LE(28), where);
    const nameBytes = rest.subarray(0, shared.readUInt16LE(22));
    const blocks = extras(rest.subarray(nameBytes.length), where);
    const raw = { size: shared.readUInt32LE(18), compressedSize: shared.readUInt32LE(14) };
    const zip64 = entry.zip64 || raw.size === MAX32 || raw.compressedSize === MAX32;
    const wide = zip64Values(blocks, [raw.size === MAX32, raw.compressedSize === MAX32], where);
    const size = raw.size === MAX32 ? wide.shift()! : raw.size;
    const compressedSize = raw.compressedSize === MAX32 ? wide.shift()! : raw.compressedSize;
    const crc = shared.readUInt32LE(10);
    const valuesAgree = (crc === entry.crc && size === entry.size && compressedSize === entry.compressedSize) || ((entry.flags & HAS_DESCRIPTOR) !== 0 && crc === 0 && size === 0 && compressedSize === 0);
    // Writers of Zip64 entries set the version needed in the two headers differently (one of them after the data).
    const versionAgrees = zip64 || shared.readUInt16LE(0) === entry.shared.readUInt16LE(0);
    if (!versionAgrees || !shared.subarray(2, 10).equals(entry.shared.subarray(2, 10)) || !valuesAgree) throw damaged(`${where} disagrees with the central directory`);
    if (!nameBytes.equals(entry.nameBytes)) throw damaged(`${where} names another file`);
    this.compareExtras(blocks, entry, where);
    const dataEnd = entry.offset + 30 + rest.length + entry.compressedSize;
    if (dataEnd > this.size) throw damaged(`the data of ${shownName(entry.name)} runs past the end of the file (cut short?)`);
    return dataEnd;
  }

  /**
   * The local header's extra fields are the central record's (Zip64 sizes aside, compared as values): each is there
   * too, and agrees with it (the modification time; the whole field, when both have the same length).
   */
  private compareExtras(local: Extra[], entry: Entry, where: string): void {
    local.forEach((block, i) => {
      // The same field given twice (a writer's own and its library's timestamp) is compared in order.
      const nth = local.slice(0, i).filter((earlier) => earlier.id === block.id).length;
      const other = entry.extras.filter((candidate) => candidate.id === block.id)[nth];
      if (block.id === ZIP64_EXTRA) return;
      if (!other) throw damaged(`${where} has an extra field 0x${block.id.toString(16).padStart(4, '0')} the central directory lacks`);
      // Fields of another length hold more in the local copy (an access time): what they share is compared below.
      // The central copy of an extended timestamp keeps the flags and the modification time only.
      const agree = block.id === EXTENDED_TIMESTAMP && block.data.length >= 5 && other.data.length >= 5 ? block.data.subarray(0, 5).equals(other.data.subarray(0, 5)) : block.data.length !== other.data.length || block.data.equals(other.data);
      if (!agree) throw damaged(`${where} disagrees with the central directory on its extra field 0x${block.id.toString(16).padStart(4, '0')}`);
    });
  }

  /** A data descriptor between the data and the next entry: its length tells its form; its values must be the central record's. */
  private descriptor(entry: Entry, dataEnd: number, next: number): number {
    const where = `the data descriptor of ${shownName(entry.name)}`;
    const length = next - dataEnd;
    // With or without its signature; sizes of 4 bytes, or 8 in a Zip64 entry.
    const form = { 12: { signed: false, wide: false }, 16: { signed: true, wide: false }, 20: { signed: false, wide: true }, 24: { signed: true, wide: true } }[length];
    if (!form) throw damaged(`${where} does not fill the space before the next entry`);
    const data = this.read(dataEnd, length, where);
    if (form.signed && data.readUInt32LE(0) !== SIGNATURE.descriptor) throw damaged(`${where} has a wrong signature`);
    const at = form.signed ? 4 : 0;
    const sizes = form.wide ? [Number(data.readBigUInt64LE(at + 4)), Number(data.readBigUInt64LE(at + 12))] : [data.readUInt32LE(at + 4), data.readUInt32LE(at + 8)];
    if (data.readUInt32LE(at) !== entry.crc || sizes[0] !== entry.compressedSize || sizes[1] !== entry.size) throw damaged(`${where} disagrees with the central directory`);
    return next;
  }
}

/** The Unix file types; a mode holding another, or a folder's type on a file's name (or the reverse), is damaged. */
const FILE_TYPES = new Set([0, 0o010000, 0o020000, 0o040000, 0o060000, 0o100000, 0o120000, 0o140000]);

function checkFileType(mode: number, name: string): void {
  const type = mode & 0o170000;
  if (!FILE_TYPES.has(type)) throw damaged(`${shownName(name)} has an unknown file type (mode ${mode.toString(8)})`);
  if (type !== 0 && (type === 0o040000) !== name.endsWith('/')) throw damaged(`${shownName(name)} has a mode that says ${type === 0o040000 ? 'folder' : 'file'} and a name that says otherwise`);
}
