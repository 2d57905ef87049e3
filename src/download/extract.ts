import { spawn } from 'node:child_process';
import { closeSync, createReadStream, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createGunzip } from 'node:zlib';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { createNew, WriteError } from '../write.js';
import { shownName, UNPRINTABLE } from './names.js';
import { checkZipStructure } from './zip-structure.js';

/**
 * Unpacks a finished archive file (zip, tar, tar.gz, tar.bz2) into a new or empty folder, safely: no entry may
 * land outside the folder (absolute names, `..`), links are skipped (nothing is ever written through a symbolic
 * link: the folder starts empty and files are created exclusively, never through a link), only the executable bit of
 * a file's mode is kept, names with control characters are refused, and the entry count, the total size and the
 * compression ratio are limited — all checked in a first pass that writes nothing, along with every CRC and, in a
 * zip, every local header against the central directory (./zip-structure.ts); a zip entry's CRC-32 is checked again
 * as it is extracted. Reads the file as a stream, never into memory; a failed extraction leaves the folder as it was.
 */

export interface ExtractLimits {
  /** The most bytes the archive may unpack to. */
  bytes: number;
  /** The most entries it may have. */
  entries: number;
  /** The most it may unpack to per byte of archive, once it unpacks to more than ratioFrom bytes (a zip bomb). */
  ratio: number;
  ratioFrom: number;
}

export const EXTRACT_LIMITS: ExtractLimits = { bytes: 8 * 1024 ** 3, entries: 200_000, ratio: 200, ratioFrom: 64 * 1024 ** 2 };

export interface ExtractOptions {
  /** Leading folders to drop from every name (1 drops the archive's top folder). */
  stripComponents: number;
  warn(text: string): void;
  /** Only entries whose name (as in the archive) this accepts are written; the others are skipped. */
  include?: (name: string) => boolean;
  limits?: ExtractLimits;
  /** What inspectArchive() found already (the download engine checks an archive before it gets its name). */
  inspected?: ArchiveInfo;
}

type Format = 'zip' | 'gzip' | 'bzip2' | 'tar';

/** What a whole pass through an archive found: it is sound (every CRC, the gzip trailer, tar's headers). */
export interface ArchiveInfo {
  format: Format;
  entries: number;
  /** What the files in it unpack to. */
  bytes: number;
}

function sniff(file: string): Format {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(512);
  const n = readSync(fd, head, 0, 512, 0);
  closeSync(fd);
  if (head[0] === 0x50 && head[1] === 0x4b) return 'zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.subarray(0, 3).toString('latin1') === 'BZh') return 'bzip2';
  if (n >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  throw new CliError('the download is not a zip or tar archive (damaged or cut short)', ExitCode.server);
}

/**
 * Reads a whole archive without writing anything: every zip entry against its CRC-32 (after the zip's structure was
 * checked byte for byte: local headers, central directory and end records agree and tile the file), a gzip stream to its trailer (CRC and length), every tar header. With
 * limits (extraction), the entry count, the unpacked size, the compression ratio and the names are checked first, so
 * that an archive refused leaves nothing behind. Throws a damaged-archive error (exit 8).
 */
export async function inspectArchive(file: string, options: { limits?: ExtractLimits | false } = {}): Promise<ArchiveInfo> {
  const format = sniff(file);
  const limits = options.limits === false ? undefined : (options.limits ?? EXTRACT_LIMITS);
  const archiveSize = statSync(file).size;
  const info: ArchiveInfo = { format, entries: 0, bytes: 0 };
  const check = (name: string, size: number): void => {
    info.entries++;
    info.bytes += size;
    if (!limits) return;
    checkName(name);
    checkLimits(info, archiveSize, limits);
  };
  if (format === 'zip') await inspectZip(file, limits, check);
  else {
    await readTar(format, file, async (header, body) => {
      check(header.name, header.type === 'file' || header.type === 'contiguous-file' ? (header.size ?? 0) : 0);
      for await (const _ of body); // read through: the decompressor checks what it reads
    });
  }
  return info;
}

function checkLimits(info: { entries: number; bytes: number }, archiveSize: number, limits: ExtractLimits): void {
  if (info.entries > limits.entries) throw new CliError(`the archive has more than ${limits.entries.toLocaleString('en-US')} entries; nothing was extracted`, ExitCode.server);
  if (info.bytes > limits.bytes) throw new CliError(`the archive unpacks to more than ${limits.bytes.toLocaleString('en-US')} bytes; nothing was extracted`, ExitCode.server);
  if (info.bytes > limits.ratioFrom && info.bytes > archiveSize * limits.ratio) {
    throw new CliError(
      `the archive unpacks to more than ${limits.ratio} times its size (${info.bytes.toLocaleString('en-US')} bytes from ${archiveSize.toLocaleString('en-US')}); nothing was extracted`,
      ExitCode.server,
      'an archive that expands this much is a decompression bomb, or damaged',
    );
  }
}

function checkName(name: string): void {
  if (UNPRINTABLE.test(name)) throw new CliError(`refusing to extract ${shownName(name)}: the name holds control or text-direction characters; nothing was extracted`, ExitCode.server, 'the archive is unsafe');
}

async function inspectZip(file: string, limits: ExtractLimits | undefined, check: (name: string, size: number) => void): Promise<void> {
  checkZipStructure(file);
  const zip = await openZip(file, false);
  try {
    // The central directory says how many entries there are before any is read.
    if (limits && zip.entryCount > limits.entries) checkLimits({ entries: zip.entryCount, bytes: 0 }, 1, limits);
    const entries: import('yauzl').Entry[] = [];
    await new Promise<void>((ok, fail) => {
      zip.on('error', (error: Error) => fail(damaged(error)));
      zip.on('end', () => ok());
      zip.on('entry', (entry: import('yauzl').Entry) => {
        try {
          check(entry.fileName, entry.uncompressedSize);
        } catch (error) {
          return fail(error);
        }
        entries.push(entry);
        zip.readEntry();
      });
      zip.readEntry();
    });
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      const stream = await new Promise<Readable>((ok, fail) => zip.openReadStream(entry, (error, s) => (error ? fail(damaged(error)) : ok(s))));
      let crc = 0;
      try {
        for await (const chunk of stream) crc = crc32(chunk as Buffer, crc);
      } catch (error) {
        throw damaged(error as Error);
      }
      if (crc >>> 0 !== entry.crc32 >>> 0) throw failsCrc(entry.fileName);
    }
  } finally {
    zip.close();
  }
}

/** Returns how many files and folders were written. On any failure, what was written is removed again. */
export async function extractArchive(file: string, dir: string, options: ExtractOptions): Promise<number> {
  const limits = options.limits ?? EXTRACT_LIMITS;
  const inspected = options.inspected ?? (await inspectArchive(file, { limits }));
  // The count, size and ratio against the limits of this extraction (an inspection may have run without them).
  checkLimits(inspected, statSync(file).size, limits);
  const existed = existsSync(dir);
  try {
    mkdirSync(dir, { recursive: true });
    const writer = new SafeWriter(resolve(dir), options);
    if (inspected.format === 'zip') await extractZip(file, writer);
    else await extractTar(inspected.format, file, writer);
    return writer.entries;
  } catch (error) {
    // The folder was new or empty: it is left as it was.
    if (existed) for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
    else rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

class SafeWriter {
  entries = 0;
  private bytes = 0;
  private readonly limits: ExtractLimits;

  constructor(
    private readonly root: string,
    private readonly options: ExtractOptions,
  ) {
    this.limits = options.limits ?? EXTRACT_LIMITS;
  }

  /** The target of an entry name, or undefined when the name is stripped away entirely. Refuses escapes. */
  target(name: string): string | undefined {
    if (name.includes('\0') || name.includes('\\') || isAbsolute(name) || /^[A-Za-z]:/.test(name)) throw unsafe(name);
    checkName(name);
    const parts = name.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.some((p) => p === '..')) throw unsafe(name);
    const kept = parts.slice(this.options.stripComponents);
    if (!kept.length) return undefined;
    const target = join(this.root, ...kept);
    if (!target.startsWith(this.root + sep)) throw unsafe(name);
    return target;
  }

  private count(size: number): void {
    this.entries++;
    this.bytes += size;
    if (this.entries > this.limits.entries || this.bytes > this.limits.bytes) checkLimits({ entries: this.entries, bytes: this.bytes }, Infinity, this.limits);
  }

  /** Whether --include leaves this entry out. */
  excluded(name: string): boolean {
    return this.options.include !== undefined && !this.options.include(name);
  }

  directory(name: string): void {
    if (this.excluded(name)) return;
    const target = this.target(name);
    if (!target) return;
    this.count(0);
    try {
      mkdirSync(target, { recursive: true, mode: 0o777 });
    } catch (error) {
      throw this.problem(name, target, error);
    }
  }

  /** A failed write: a folder and a file of the same name, or the disk (full, read-only). */
  private problem(name: string, target: string, error: unknown): CliError {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return new CliError(`the archive has both a folder and a file named ${shownName(name.replace(/\/+$/, ''))}; nothing was extracted`, ExitCode.server);
    return new WriteError(target, error, `nothing was left in ${this.root}; free some space (or extract elsewhere) and run the command again`);
  }

  skip(name: string, what: string): void {
    this.options.warn(`skipped ${what} ${shownName(name)} (links and special files are not extracted)`);
  }

  /**
   * Writes a file from a stream; only the executable bit of `mode` is kept (the rest is the umask's). A zip entry's
   * CRC-32 is checked as it is written (the file may have changed since the inspection).
   */
  async file(name: string, mode: number, size: number | undefined, content: AsyncIterable<Buffer>, crc?: number): Promise<void> {
    const target = this.excluded(name) ? undefined : this.target(name);
    if (!target) {
      for await (const _ of content); // drain
      return;
    }
    this.count(size ?? 0);
    let fd: number;
    try {
      mkdirSync(resolve(target, '..'), { recursive: true, mode: 0o777 });
      fd = this.create(target, mode & 0o111 ? 0o777 : 0o666);
    } catch (error) {
      throw this.problem(name, target, error);
    }
    try {
      let written = 0;
      let sum = 0;
      for await (const chunk of content) {
        written += chunk.length;
        if (crc !== undefined) sum = crc32(chunk, sum);
        if (size === undefined) this.count(chunk.length);
        try {
          writeAllSync(fd, chunk);
        } catch (error) {
          throw this.problem(name, target, error);
        }
      }
      if (size !== undefined && written !== size) throw new CliError(`the archive entry ${shownName(name)} is damaged (${written} of ${size} bytes)`, ExitCode.server);
      if (crc !== undefined && sum >>> 0 !== crc >>> 0) throw failsCrc(name);
    } finally {
      closeSync(fd);
    }
  }

  /** A new file; an entry given twice (tar appends) replaces the earlier file, never a folder or a link. */
  private create(target: string, mode: number): number {
    try {
      return createNew(target, 'content', mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(target).isFile()) throw error;
      rmSync(target);
      return createNew(target, 'content', mode);
    }
  }
}

function writeAllSync(fd: number, data: Buffer): void {
  for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
}

function unsafe(name: string): CliError {
  return new CliError(`refusing to extract ${shownName(name)}: it would land outside the target folder`, ExitCode.server, 'the archive is unsafe; nothing outside the folder was written');
}

type TarHeader = { name: string; type?: string | null; mode?: number; size?: number };

/**
 * Reads a tar archive (plain, gzip or bzip2) entry by entry; a damaged stream (a bad gzip trailer, a cut-short
 * archive, a bad header) is a damaged-archive error, never an unhandled stream error.
 */
async function readTar(format: Exclude<Format, 'zip'>, file: string, onEntry: (header: TarHeader, body: AsyncIterable<Buffer> & { resume(): void }) => Promise<void>): Promise<void> {
  const tarStream = await import('tar-stream');
  const extract = tarStream.extract ?? (tarStream as unknown as { default: typeof tarStream }).default.extract;
  let child: ReturnType<typeof spawn> | undefined;
  const stages: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [];
  if (format === 'bzip2') {
    // No well-kept JavaScript bzip2 decoder exists; the system's bzip2 does it.
    const bzip2 = spawn('bzip2', ['-dc', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((ok, fail) => {
      bzip2.once('spawn', () => ok());
      bzip2.once('error', () => fail(new UsageError('cannot extract a .tar.bz2 archive: bzip2 is not installed', 'download the archive as tar.gz or zip')));
    });
    child = bzip2;
    stages.push(bzip2.stdout as Readable);
  } else {
    stages.push(createReadStream(file));
    if (format === 'gzip') stages.push(createGunzip());
  }
  const parser = extract();
  let broken: Error | undefined;
  const piped = (pipeline as unknown as (...streams: unknown[]) => Promise<void>)(...stages, parser).catch((error: Error) => {
    broken ??= error;
  });
  try {
    for await (const entry of parser) {
      await onEntry(entry.header as TarHeader, entry as AsyncIterable<Buffer> & { resume(): void });
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    broken ??= error as Error;
  }
  await piped;
  if (broken) throw new CliError(`the ${format === 'tar' ? 'tar' : `tar.${format === 'gzip' ? 'gz' : 'bz2'}`} archive is damaged: ${broken.message}`, ExitCode.server);
  if (child) {
    const code = child.exitCode ?? (await new Promise<number | null>((ok) => child!.once('close', ok)));
    if (code !== 0) throw new CliError('the tar.bz2 archive is damaged: bzip2 could not decompress it', ExitCode.server);
  }
}

async function extractTar(format: Exclude<Format, 'zip'>, file: string, writer: SafeWriter): Promise<void> {
  await readTar(format, file, async (header, entry) => {
    const { name, type, mode, size } = header;
    if (type === 'directory') {
      writer.directory(name);
      entry.resume();
    } else if (type === 'file' || type === 'contiguous-file') {
      await writer.file(name, mode ?? 0o644, size, entry);
    } else {
      writer.skip(name, type ?? 'entry');
      entry.resume();
    }
  });
}

/** The zip reader (its CommonJS exports, however the bundle hands them over). */
export async function loadYauzl(): Promise<typeof import('yauzl')> {
  const imported = await import('yauzl');
  return typeof (imported as { open?: unknown }).open === 'function' ? imported : (imported as unknown as { default: typeof imported }).default;
}

export const ZIP_OPTIONS = { lazyEntries: true, autoClose: true, validateEntrySizes: true, decodeStrings: true } as const;

async function openZip(file: string, autoClose = true): Promise<import('yauzl').ZipFile> {
  const yauzl = await loadYauzl();
  return new Promise<import('yauzl').ZipFile>((ok, fail) => yauzl.open(file, { ...ZIP_OPTIONS, autoClose }, (error, z) => (error ? fail(damaged(error)) : ok(z))));
}

export interface ZipEntryInfo {
  name: string;
  type: 'file' | 'directory' | 'symbolic link' | 'special file';
  size: number;
  compressed_size: number;
}

/** The entries of a zip file, from its central directory (nothing is unpacked). */
export async function listZip(file: string): Promise<ZipEntryInfo[]> {
  if (sniff(file) !== 'zip') throw new UsageError(`cannot list ${file}: not a zip archive`);
  return zipEntries(await openZip(file));
}

/** The entries of an open zip, from its central directory (no entry is read). */
export async function zipEntries(zip: import('yauzl').ZipFile): Promise<ZipEntryInfo[]> {
  const entries: ZipEntryInfo[] = [];
  await new Promise<void>((ok, fail) => {
    zip.on('error', (error: Error) => fail(damaged(error)));
    zip.on('end', () => ok());
    zip.on('entry', (entry: import('yauzl').Entry) => {
      const kind = (entry.externalFileAttributes >>> 16) & 0o170000;
      const type = entry.fileName.endsWith('/') || kind === 0o040000 ? 'directory' : kind === 0o120000 ? 'symbolic link' : kind === 0 || kind === 0o100000 ? 'file' : 'special file';
      entries.push({ name: entry.fileName, type, size: entry.uncompressedSize, compressed_size: entry.compressedSize });
      zip.readEntry();
    });
    zip.readEntry();
  });
  return entries;
}

async function extractZip(file: string, writer: SafeWriter): Promise<void> {
  const zip = await openZip(file);
  await new Promise<void>((ok, fail) => {
    zip.on('error', (error: Error) => fail(damaged(error)));
    zip.on('end', () => ok());
    zip.on('entry', (entry: import('yauzl').Entry) => {
      const mode = (entry.externalFileAttributes >>> 16) & 0o177777;
      const kind = mode & 0o170000;
      const step = async (): Promise<void> => {
        if (entry.fileName.endsWith('/') || kind === 0o040000) writer.directory(entry.fileName);
        else if (kind !== 0 && kind !== 0o100000) writer.skip(entry.fileName, kind === 0o120000 ? 'symbolic link' : 'special file');
        else if (writer.excluded(entry.fileName)) {
          // left out by --include: not even read
        } else {
          writer.target(entry.fileName);
          const stream = await new Promise<Readable>((res, rej) => zip.openReadStream(entry, (error, s) => (error ? rej(damaged(error)) : res(s))));
          await writer.file(entry.fileName, mode, entry.uncompressedSize, stream as AsyncIterable<Buffer>, entry.crc32);
        }
      };
      step().then(() => zip.readEntry(), (error: unknown) => {
        zip.close();
        fail(error);
      });
    });
    zip.readEntry();
  });
}

const failsCrc = (name: string) => new CliError(`the zip archive is damaged: ${shownName(name)} fails its CRC-32 check`, ExitCode.server);

export function damaged(error: Error): CliError {
  if (error instanceof CliError) return error;
  if (/invalid relative path|absolute path/i.test(error.message)) return new CliError(`refusing to extract: ${error.message}`, ExitCode.server, 'the archive is unsafe; nothing outside the folder was written');
  return new CliError(`the zip archive is damaged: ${error.message}`, ExitCode.server);
}
