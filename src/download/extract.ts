import { spawn } from 'node:child_process';
import { closeSync, constants, createReadStream, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { CliError, ExitCode, UsageError } from '../errors.js';

/**
 * Unpacks a finished archive file (zip, tar, tar.gz, tar.bz2) into a new or empty folder, safely: no entry may
 * land outside the folder (absolute names, `..`), links are skipped (nothing is ever written through a symbolic
 * link: the folder starts empty and files are opened with O_NOFOLLOW), only the executable bit of a file's mode is
 * kept, and the total size and entry count are limited. Reads the file as a stream, never into memory.
 */

export const EXTRACT_LIMITS = { bytes: 8 * 1024 ** 3, entries: 200_000 };

export interface ExtractOptions {
  /** Leading folders to drop from every name (1 drops the archive's top folder). */
  stripComponents: number;
  warn(text: string): void;
  /** Only entries whose name (as in the archive) this accepts are written; the others are skipped. */
  include?: (name: string) => boolean;
  limits?: { bytes: number; entries: number };
}

type Format = 'zip' | 'gzip' | 'bzip2' | 'tar';

function sniff(file: string): Format {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(512);
  const n = readSync(fd, head, 0, 512, 0);
  closeSync(fd);
  if (head[0] === 0x50 && head[1] === 0x4b) return 'zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.subarray(0, 3).toString('latin1') === 'BZh') return 'bzip2';
  if (n >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  throw new UsageError(`cannot extract ${file}: not a zip or tar archive`);
}

/** Returns how many files and folders were written. */
export async function extractArchive(file: string, dir: string, options: ExtractOptions): Promise<number> {
  const format = sniff(file);
  mkdirSync(dir, { recursive: true });
  const writer = new SafeWriter(resolve(dir), options);
  if (format === 'zip') await extractZip(file, writer);
  else await extractTar(format, file, writer);
  return writer.entries;
}

class SafeWriter {
  entries = 0;
  private bytes = 0;
  private readonly limits: { bytes: number; entries: number };

  constructor(
    private readonly root: string,
    private readonly options: ExtractOptions,
  ) {
    this.limits = options.limits ?? EXTRACT_LIMITS;
  }

  /** The target of an entry name, or undefined when the name is stripped away entirely. Refuses escapes. */
  target(name: string): string | undefined {
    if (name.includes('\0') || name.includes('\\') || isAbsolute(name) || /^[A-Za-z]:/.test(name)) throw unsafe(name);
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
    if (this.entries > this.limits.entries) throw new CliError(`the archive has more than ${this.limits.entries.toLocaleString('en-US')} entries; extraction stopped`, ExitCode.server);
    if (this.bytes > this.limits.bytes) throw new CliError(`the archive unpacks to more than ${this.limits.bytes.toLocaleString('en-US')} bytes; extraction stopped`, ExitCode.server);
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
    mkdirSync(target, { recursive: true, mode: 0o755 });
  }

  skip(name: string, what: string): void {
    this.options.warn(`skipped ${what} ${name} (links and special files are not extracted)`);
  }

  /** Writes a file from a stream; only the executable bit of `mode` is kept. */
  async file(name: string, mode: number, size: number | undefined, content: AsyncIterable<Buffer>): Promise<void> {
    const target = this.excluded(name) ? undefined : this.target(name);
    if (!target) {
      for await (const _ of content); // drain
      return;
    }
    this.count(size ?? 0);
    mkdirSync(resolve(target, '..'), { recursive: true, mode: 0o755 });
    const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode & 0o111 ? 0o755 : 0o644);
    try {
      let written = 0;
      for await (const chunk of content) {
        written += chunk.length;
        if (size === undefined) this.count(chunk.length);
        writeSync(fd, chunk);
      }
      if (size !== undefined && written !== size) throw new CliError(`the archive entry ${name} is damaged (${written} of ${size} bytes)`, ExitCode.server);
    } finally {
      closeSync(fd);
    }
  }
}

function unsafe(name: string): CliError {
  return new CliError(`refusing to extract ${JSON.stringify(name)}: it would land outside the target folder`, ExitCode.server, 'the archive is unsafe; nothing outside the folder was written');
}

async function extractTar(format: Exclude<Format, 'zip'>, file: string, writer: SafeWriter): Promise<void> {
  const tarStream = await import('tar-stream');
  const extract = tarStream.extract ?? (tarStream as unknown as { default: typeof tarStream }).default.extract;
  let input: Readable = createReadStream(file);
  let child: ReturnType<typeof spawn> | undefined;
  if (format === 'gzip') input = input.pipe(createGunzip());
  if (format === 'bzip2') {
    // No well-kept JavaScript bzip2 decoder exists; the system's bzip2 does it.
    const bzip2 = spawn('bzip2', ['-dc', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((ok, fail) => {
      bzip2.once('spawn', () => ok());
      bzip2.once('error', () => fail(new UsageError('cannot extract a .tar.bz2 archive: bzip2 is not installed', 'download the archive as tar.gz or zip')));
    });
    child = bzip2;
    input = bzip2.stdout as Readable;
  }
  const parser = extract();
  input.pipe(parser);
  for await (const entry of parser) {
    const { name, type, mode, size } = entry.header;
    if (type === 'directory') {
      writer.directory(name);
      entry.resume();
    } else if (type === 'file' || type === 'contiguous-file') {
      await writer.file(name, mode ?? 0o644, size, entry as AsyncIterable<Buffer>);
    } else {
      writer.skip(name, type ?? 'entry');
      entry.resume();
    }
  }
  if (child) {
    const code = child.exitCode ?? (await new Promise<number | null>((ok) => child!.once('close', ok)));
    if (code !== 0) throw new CliError('bzip2 could not decompress the archive', ExitCode.server);
  }
}

/** The zip reader (its CommonJS exports, however the bundle hands them over). */
export async function loadYauzl(): Promise<typeof import('yauzl')> {
  const imported = await import('yauzl');
  return typeof (imported as { open?: unknown }).open === 'function' ? imported : (imported as unknown as { default: typeof imported }).default;
}

export const ZIP_OPTIONS = { lazyEntries: true, autoClose: true, validateEntrySizes: true, decodeStrings: true } as const;

async function openZip(file: string): Promise<import('yauzl').ZipFile> {
  const yauzl = await loadYauzl();
  return new Promise<import('yauzl').ZipFile>((ok, fail) => yauzl.open(file, ZIP_OPTIONS, (error, z) => (error ? fail(damaged(error)) : ok(z))));
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
          await writer.file(entry.fileName, mode, entry.uncompressedSize, stream as AsyncIterable<Buffer>);
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

export function damaged(error: Error): CliError {
  if (error instanceof CliError) return error;
  if (/invalid relative path|absolute path/i.test(error.message)) return new CliError(`refusing to extract: ${error.message}`, ExitCode.server, 'the archive is unsafe; nothing outside the folder was written');
  return new CliError(`the zip archive is damaged: ${error.message}`, ExitCode.server);
}
