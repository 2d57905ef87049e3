import { createHash, type Hash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fdatasync, fsyncSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, ftruncateSync, write, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Api, ApiRequest } from '../api/client.js';
import { expandRoute, type Query } from '../api/path.js';
import { checkWritableTarget, fileProblem } from '../files.js';
import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import type { Io } from '../output/io.js';
import { startProgress } from './progress.js';
import { plural } from '../parse.js';

/**
 * The download engine every download goes through (archives, raw files and blobs, secure files, exports, and
 * artifacts and snippets): streams to FILE.part beside the target, fsyncs and renames only when complete and
 * verified, so memory stays flat at any size and an interrupted download never leaves a partial file under the
 * target name. Progress on stderr; --resume continues a .part with Range/If-Range; --sha256 and the service's own
 * checksum and size headers are verified; --extract unpacks a zip or tar archive from the finished file.
 */

/** Where the bytes come from: a request that can be sent again from an offset. */
export interface DownloadSource {
  /**
   * Sends the request; with `range`, asks for the bytes from `start` on (to `end`, inclusive, when given), while the
   * content is still `validator`.
   */
  open(range?: { start: number; end?: number; validator?: string }): Promise<HttpResponse>;
  /** False for a body that can be read once only: an interrupted download must start over. */
  resumable?: boolean;
}

/** A source that is a request to the service (redirects followed; credentials dropped when the host changes). */
export function apiSource(api: Api, request: ApiRequest): DownloadSource {
  return {
    open: (range) =>
      api.send({
        ...request,
        method: request.method ?? 'GET',
        headers: {
          ...request.headers,
          accept: '*/*',
          ...(range ? { range: `bytes=${range.start}-${range.end ?? ''}`, ...(range.validator ? { 'if-range': range.validator } : {}) } : {}),
        },
      }),
  };
}

/** What a download is checked against: given up front, or read from the response's headers. */
export interface Expected {
  sha256?: string;
  size?: number;
  /** The git blob id the bytes must hash to (a full 40- or 64-character id; checked when the size is known). */
  gitBlob?: string;
}

export interface DownloadOptions {
  /** The target file; undefined or '-' is stdout (refused when stdout is a terminal). */
  outputFile?: string;
  /** Continue FILE.part from where it stopped. */
  resume?: boolean;
  /** The sha256 the bytes must have (--sha256); wins over the service's. */
  sha256?: string;
  /** The size the bytes must have. */
  size?: number;
  /** The git blob the bytes are (repo blob --raw): a full id is checked against them. */
  gitBlob?: string;
  /** The checksum and size the service announces in a response (X-Gitlab-Content-Sha256, X-Gitlab-Size …). */
  expect?: (response: HttpResponse) => Expected;
  /** Unpack the finished file (zip, tar, tar.gz, tar.bz2) into this folder; `include` picks entries by name. */
  extract?: { dir: string; stripComponents?: number; include?: (name: string) => boolean };
  /** What is downloaded, for messages ("archive of acme/api"). */
  description?: string;
  /** The file is a temporary one (--extract without --output-file): not worth a notice. */
  temporary?: boolean;
}

/** What a download to a file produced: printed as a record, so `-o json` works. */
export interface DownloadRecord {
  /** The file written (absent when only extracted). */
  path?: string;
  bytes: number;
  sha256: string;
  /** With --extract: the folder and how many files and folders were written. */
  extracted_to?: string;
  entries?: number;
}

const FLUSH_BYTES = 16 * 1024 * 1024;
/** Bytes handed to the file system and not yet written: bounds memory while writes run beside the download. */
const WRITE_AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * Writes chunks to a file in the background, each at its own position (libuv's thread pool), so that the main
 * thread receives and hashes the next bytes meanwhile; and flushes what was written to disk every FLUSH_BYTES, so
 * that the final fsync is short. write() waits only when WRITE_AHEAD_BYTES are pending; finish() waits for all of
 * it and fsyncs. A failed write is thrown by the next write() or by finish().
 */
class FileWriter {
  private pending = 0;
  private unflushed = 0;
  private flushing?: Promise<void>;
  private failure?: Error;
  /** Where the first failed write was to go: the file is cut there, so that it holds no gap (--resume). */
  private failedAt?: number;
  private wake?: () => void;

  constructor(
    private readonly fd: number,
    private position: number,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    this.pending += chunk.length;
    this.writeAt(chunk, this.position);
    this.position += chunk.length;
    while (this.pending > WRITE_AHEAD_BYTES && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    if (this.failure) throw this.failure;
  }

  private writeAt(chunk: Buffer, position: number): void {
    write(this.fd, chunk, 0, chunk.length, position, (error, written) => {
      if (error) {
        this.failure ??= error;
        this.failedAt = Math.min(this.failedAt ?? position, position);
      } else if (written < chunk.length) {
        return this.writeAt(chunk.subarray(written), position + written);
      }
      this.pending -= chunk.length;
      this.unflushed += chunk.length;
      if (this.unflushed >= FLUSH_BYTES && !this.flushing && !this.failure) {
        this.unflushed = 0;
        this.flushing = new Promise<void>((resolve) => fdatasync(this.fd, () => resolve())).finally(() => (this.flushing = undefined));
      }
      if (this.wake) {
        const wake = this.wake;
        this.wake = undefined;
        wake();
      }
    });
  }

  /** Waits for every write and background flush; then fsyncs. */
  async finish(): Promise<void> {
    await this.settle();
    if (this.failure) throw this.failure;
    fsyncSync(this.fd);
  }

  /** Waits for the writes already started (the file must not be closed under them), and cuts off a failed tail. */
  async settle(): Promise<void> {
    while (this.pending > 0) await new Promise<void>((resolve) => (this.wake = resolve));
    await this.flushing;
    if (this.failedAt !== undefined) ftruncateSync(this.fd, this.failedAt);
  }
}

interface PartMeta {
  validator?: string;
  total?: number;
}

/**
 * Runs a download. Returns the record of a file written (undefined when the bytes went to stdout). Failures: a
 * checksum or size mismatch is exit 8 and nothing is renamed into place (the .part is removed); an interrupted
 * transfer keeps FILE.part for --resume and says so.
 */
export async function download(source: DownloadSource, options: DownloadOptions, io: Io): Promise<DownloadRecord | undefined> {
  const toStdout = !options.outputFile || options.outputFile === '-';
  if (toStdout && options.extract) {
    const dir = mkdtempSync(join(tmpdir(), 'forgectl-download-'));
    try {
      const record = await download(source, { ...options, outputFile: join(dir, 'archive'), temporary: true }, io);
      if (!record) return undefined;
      const { path: _temporary, ...rest } = record;
      return rest as DownloadRecord;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (toStdout) {
    if (io.stdoutIsTTY) throw new UsageError('refusing to write binary data to the terminal', 'give --output-file PATH (-O), or redirect stdout');
    await toStream(source, options, io);
    return undefined;
  }
  const target = options.outputFile!;
  if (options.extract) checkExtractTarget(options.extract.dir);
  checkWritableTarget(target);
  const part = `${target}.part`;
  const metaFile = `${target}.part.json`;

  let start = options.resume && existsSync(part) ? statSync(part).size : 0;
  let response: HttpResponse | undefined;
  if (start > 0) {
    try {
      response = await source.open({ start, validator: readMeta(metaFile).validator });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 416)) throw error;
      io.note(`${part} does not match what the service serves now; starting over`);
    }
    if (response && !(response.status === 206 && contentRangeStart(response) === start)) {
      io.note(`the service sent the whole file again (status ${response.status}); starting over`);
      start = 0;
    } else if (!response) {
      start = 0;
    }
  }
  response ??= await source.open();
  const expected = expectedOf(response, options);
  const digests = new Digests(expected);
  if (start > 0) {
    await hashFile(part, digests);
    io.note(`resuming ${target} at ${start.toLocaleString('en-US')} bytes`);
  }
  const fd = openPart(part, start > 0 ? 'a' : 'w', target);
  const leftover = `the bytes so far are in ${part}; ${source.resumable === false ? 'run the same command again to start over' : 'run the same command with --resume to continue'}`;
  return finish(await transfer(response, fd, digests, expected, start, { part, metaFile, leftover }, options, io), target, part, metaFile, options, io);
}

function openPart(part: string, flags: 'a' | 'w', target: string): number {
  try {
    return openSync(part, flags, 0o600);
  } catch (error) {
    throw new UsageError(`cannot write ${target}: ${fileProblem(error)}`);
  }
}

/** What the checks are made against: the command's values first, then what the service announces. */
function expectedOf(response: HttpResponse, options: DownloadOptions): Expected {
  const announced = { ...options.expect?.(response) };
  const gitBlob = options.gitBlob && /^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(options.gitBlob) ? options.gitBlob.toLowerCase() : undefined;
  return { sha256: options.sha256 ?? announced.sha256, size: options.size ?? announced.size ?? totalSize(response), gitBlob };
}

/**
 * The digests of the bytes, fed as they arrive: their sha256, and the git blob id when one is expected (git hashes
 * "blob SIZE\0" first, so the size must be known before the first byte: from the request or Content-Length).
 */
class Digests {
  private readonly sha256 = createHash('sha256');
  private readonly gitBlob?: Hash;

  constructor(expected: Expected) {
    if (expected.gitBlob && expected.size !== undefined) this.gitBlob = createHash(expected.gitBlob.length === 64 ? 'sha256' : 'sha1').update(`blob ${expected.size}\0`);
  }

  update(chunk: Buffer): void {
    this.sha256.update(chunk);
    this.gitBlob?.update(chunk);
  }

  digest(bytes: number, expected: Expected): Transferred {
    return { bytes, sha256: this.sha256.digest('hex'), gitBlob: this.gitBlob?.digest('hex'), expected };
  }
}

interface Transferred {
  bytes: number;
  sha256: string;
  /** The git blob id of the bytes, when one was expected and could be computed. */
  gitBlob?: string;
  expected: Expected;
}

/** Streams a response body into fd, hashing as it goes; keeps the .part (and what --resume needs) on failure. */
async function transfer(response: HttpResponse, fd: number, digests: Digests, expected: Expected, start: number, files: { part: string; metaFile: string; leftover: string }, options: DownloadOptions, io: Io): Promise<Transferred> {
  const { part, metaFile, leftover } = files;
  const validator = response.header('etag') ?? response.header('last-modified');
  writeFileSync(metaFile, JSON.stringify({ validator, total: expected.size } satisfies PartMeta), { mode: 0o600 });
  const progress = startProgress(io, { total: expected.size, start, label: options.description ?? basename(part.replace(/\.part$/, '')) });
  let received = start;
  const writer = new FileWriter(fd, start);
  // Interrupted now (Ctrl-C), the command says where the bytes are.
  const outerNote = io.state.interruptNote;
  io.state.interruptNote = leftover;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      digests.update(chunk);
      await writer.write(chunk);
      received += chunk.length;
      progress.update(received);
    }
    await writer.finish();
  } catch (error) {
    progress.done(received);
    await writer.settle();
    closeQuietly(fd);
    if (error instanceof CliError) throw error;
    throw new CliError(
      `download interrupted after ${received.toLocaleString('en-US')} bytes: ${(error as Error).message ?? error}`,
      ExitCode.server,
      leftover,
    );
  } finally {
    io.state.interruptNote = outerNote;
  }
  progress.done(received);
  closeQuietly(fd);
  return digests.digest(received, expected);
}

async function finish(result: Transferred, target: string, part: string, metaFile: string, options: DownloadOptions, io: Io): Promise<DownloadRecord> {
  const problem = mismatch(result);
  if (problem) {
    rmSync(part, { force: true });
    rmSync(metaFile, { force: true });
    throw new CliError(`${problem}; nothing was written to ${target}`, ExitCode.server, 'the download was corrupted or the file changed while it was read; try again');
  }
  try {
    renameSync(part, target);
  } catch (error) {
    throw new UsageError(`cannot write ${target}: ${fileProblem(error)}`, `the verified bytes are in ${part}`);
  }
  rmSync(metaFile, { force: true });
  const record: DownloadRecord = { path: target, bytes: result.bytes, sha256: result.sha256 };
  if (!options.temporary) io.note(`wrote ${result.bytes.toLocaleString('en-US')} bytes to ${target}${verifiedNote(result)}`);
  if (options.extract) {
    const { extractArchive } = await import('./extract.js');
    const entries = await extractArchive(target, options.extract.dir, { stripComponents: options.extract.stripComponents ?? 0, include: options.extract.include, warn: (text) => io.warn(text) });
    io.note(`extracted ${plural(entries, 'entry', 'entries')} into ${options.extract.dir}`);
    Object.assign(record, { extracted_to: options.extract.dir, entries });
  }
  return record;
}

function mismatch(result: Transferred): string | undefined {
  const { size, sha256, gitBlob } = result.expected;
  if (size !== undefined && size !== result.bytes) return `size mismatch: expected ${size.toLocaleString('en-US')} bytes, got ${result.bytes.toLocaleString('en-US')}`;
  if (sha256 && sha256.toLowerCase() !== result.sha256) return `checksum mismatch: expected sha256 ${sha256.toLowerCase()}, got ${result.sha256}`;
  if (gitBlob && result.gitBlob && gitBlob !== result.gitBlob) return `blob id mismatch: expected ${gitBlob}, the bytes hash to ${result.gitBlob}`;
  return undefined;
}

/** What the notice after a download says was checked. */
function verifiedNote(result: Transferred): string {
  const checked = [result.expected.sha256 && 'sha256', result.gitBlob && 'blob id'].filter(Boolean);
  return checked.length ? ` (${checked.join(' and ')} verified)` : '';
}

/** To stdout: streamed with backpressure, verified at the end (the bytes are out by then: the exit code says so). */
async function toStream(source: DownloadSource, options: DownloadOptions, io: Io): Promise<void> {
  const response = await source.open();
  const expected = expectedOf(response, options);
  const digests = new Digests(expected);
  let bytes = 0;
  const progress = startProgress(io, { total: expected.size, start: 0, label: options.description ?? 'download' });
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    digests.update(chunk);
    bytes += chunk.length;
    if (!io.streams.stdout.write(chunk)) await new Promise<void>((resolve) => io.streams.stdout.once('drain', () => resolve()));
    progress.update(bytes);
  }
  progress.done(bytes);
  const problem = mismatch(digests.digest(bytes, expected));
  if (problem) throw new CliError(`${problem}; the bytes written to stdout are not what the service announced`, ExitCode.server);
}

/** The whole size: from Content-Range of a 206, else Content-Length (absent for a compressed or chunked answer). */
export function totalSize(response: HttpResponse): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.header('content-range') ?? '');
  if (range) return Number(range[1]);
  if (response.header('content-encoding')) return undefined;
  const length = Number(response.header('content-length'));
  return Number.isFinite(length) && response.header('content-length') !== undefined ? length : undefined;
}

export function contentRangeStart(response: HttpResponse): number | undefined {
  const match = /^bytes (\d+)-/.exec(response.header('content-range') ?? '');
  return match ? Number(match[1]) : undefined;
}

function readMeta(file: string): PartMeta {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PartMeta;
  } catch {
    return {};
  }
}

async function hashFile(path: string, digests: Digests): Promise<void> {
  for await (const chunk of createReadStream(path)) digests.update(chunk as Buffer);
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** --extract needs a folder that does not exist yet or is empty (nothing in it can be overwritten or followed). */
export function checkExtractTarget(dir: string): void {
  try {
    const stat = statSync(dir);
    if (!stat.isDirectory()) throw new UsageError(`cannot extract into ${dir}: it is not a folder`);
    if (readdirSync(dir).length) throw new UsageError(`cannot extract into ${dir}: the folder is not empty`, 'give a new or empty folder');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot extract into ${dir}: ${fileProblem(error)}`);
  }
}

/** What render() does with a DownloadResult: a one-shot body stream becomes a source that cannot resume. */
export async function runDownload(result: { source: DownloadSource | AsyncIterable<Uint8Array>; options: DownloadOptions }, io: Io): Promise<DownloadRecord | undefined> {
  const { source } = result;
  if ('open' in source) return download(source, result.options, io);
  let used = false;
  const once: DownloadSource = {
    resumable: false,
    async open(range) {
      if (used || range) throw new UsageError('this download cannot be resumed');
      used = true;
      const headers: Record<string, string> = {};
      return { status: 200, headers, header: () => undefined, body: source as HttpResponse['body'], text: async () => '', buffer: async () => Buffer.alloc(0) };
    },
  };
  return download(once, { ...result.options, resume: false }, io);
}

/** A source for a declared route: path parameters expanded, the rest as the query (`suffix` ends the path: `.zip`). */
export function routeSource(api: Api, route: string, params: Record<string, unknown>, suffix = ''): DownloadSource {
  const { method, path, rest } = expandRoute(route, params);
  return apiSource(api, { method, path: path + suffix, query: rest as Query });
}
