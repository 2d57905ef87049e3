import { createHash, type Hash } from 'node:crypto';
import { constants, createReadStream, mkdtempSync, open, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Api, ApiRequest } from '../api/client.js';
import { expandRoute, type Query } from '../api/path.js';
import { checkWritableTarget } from '../files.js';
import { ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import type { Io } from '../output/io.js';
import { checkOwnFile, closeQuietly, createNew, fileProblem, isSpecialFile, openOwnForAppend, readOwnFile, removeOwnFile, StreamWriter, writeFileAtomically, WriteError } from '../write.js';
import type { ArchiveInfo } from './extract.js';
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
  /** The bytes are an archive: checked whole (zip CRCs, gzip trailer, tar structure) before they get the name. */
  verify?: 'archive';
  /** The file holds a secret (a secure file): mode 0600 whatever the umask. */
  secret?: boolean;
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

interface PartMeta {
  validator?: string;
  total?: number;
}

/**
 * Runs a download. Returns the record of a file written (undefined when the bytes went to stdout). Failures: a
 * checksum, size or archive check that fails is exit 8 and nothing is renamed into place (the .part is removed); a
 * file that cannot be written (a full disk) is exit 2 with the .part removed; an interrupted transfer keeps
 * FILE.part for --resume and says so.
 */
export async function download(source: DownloadSource, options: DownloadOptions, io: Io): Promise<DownloadRecord | undefined> {
  const toStdout = options.outputFile === undefined || options.outputFile === '-';
  if (options.outputFile === '') throw new UsageError('--output-file needs a file name', 'give - for stdout');
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
  // A device or FIFO (-O /dev/null, a named pipe) is written to as a stream: never unlinked or replaced.
  if (isSpecialFile(target)) return toDevice(source, target, options, io);
  const part = `${target}.part`;
  const metaFile = `${target}.part.json`;

  const resumed = options.resume ? await resumeFrom(source, part, metaFile, io) : undefined;
  const start = resumed?.start ?? 0;
  const response = resumed?.response ?? (await source.open());
  const expected = expectedOf(response, options);
  const digests = new Digests(expected);
  if (start > 0) {
    await hashFile(part, digests);
    io.note(`resuming ${target} at ${start.toLocaleString('en-US')} bytes`);
  }
  let fd: number;
  try {
    if (start > 0) fd = openOwnForAppend(part, 'partial download');
    else {
      removeOwnFile(part, 'partial download');
      fd = createNew(part, options.secret ? 'secret' : 'content');
    }
  } catch (error) {
    await release(response);
    if (error instanceof CliError) throw error;
    throw new WriteError(target, error);
  }
  const leftover = `the bytes so far are in ${part}; ${source.resumable === false ? 'run the same command again to start over' : 'run the same command with --resume to continue'}`;
  return finish(await transfer(response, fd, digests, expected, start, { target, part, metaFile, leftover }, options, io), target, part, metaFile, options, io);
}

/**
 * Where --resume continues: FILE.part is continued only when its sidecar says what it is a part of (ETag or
 * Last-Modified, and the whole size), the request carries that validator in If-Range, and the 206 that comes back
 * has the same validator and size. Anything else starts over and says why. Returns the response to read from when
 * it continues, or the whole answer (200) when the service sent everything again.
 */
async function resumeFrom(source: DownloadSource, part: string, metaFile: string, io: Io): Promise<{ start: number; response?: HttpResponse } | undefined> {
  if (!checkOwnFile(part, 'partial download')) return undefined;
  const start = statSync(part).size;
  if (start === 0) return undefined;
  const meta = readMeta(metaFile);
  // If-Range needs a strong validator: a weak ETag cannot say the bytes are the same.
  if (!meta.validator || meta.validator.startsWith('W/')) {
    io.note(`${part} has no record of what it is a part of (${metaFile} is missing or holds no validator); starting over`);
    return undefined;
  }
  let response: HttpResponse;
  try {
    response = await source.open({ start, validator: meta.validator });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 416)) throw error;
    io.note(`${part} does not match what the service serves now; starting over`);
    return undefined;
  }
  if (response.status !== 206) {
    io.note(`the service sent the whole file again (status ${response.status}); starting over`);
    return { start: 0, response };
  }
  const now = validatorOf(response);
  const problem =
    contentRangeStart(response) !== start
      ? 'the service answered with other bytes than asked for'
      : now !== meta.validator
        ? `the file changed since ${part} was written (${now ? `validator ${now}, was ${meta.validator}` : 'the answer has no validator to compare'})`
        : meta.total !== undefined && totalSize(response) !== meta.total
          ? `the file's size changed since ${part} was written`
          : undefined;
  if (problem) {
    await release(response);
    io.note(`${problem}; starting over`);
    return undefined;
  }
  return { start, response };
}

/** Lets go of an answer not read (or read only in part): a service answer is drained, a one-shot stream stopped. */
async function release(response: HttpResponse): Promise<void> {
  const body = response.body as { dump?: () => Promise<void>; destroy?: () => void };
  if (typeof body.dump === 'function') await body.dump().catch(() => undefined);
  else body.destroy?.();
}

/** What identifies the content of an answer (If-Range): its ETag, else its Last-Modified. */
function validatorOf(response: HttpResponse): string | undefined {
  return response.header('etag') ?? response.header('last-modified');
}

/** What the checks are made against: the command's values first, then what the service announces. */
function expectedOf(response: HttpResponse, options: DownloadOptions): Expected {
  const announced = { ...options.expect?.(response) };
  const gitBlob = options.gitBlob && /^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(options.gitBlob) ? options.gitBlob.toLowerCase() : undefined;
  return { sha256: options.sha256 ?? announced.sha256, size: options.size ?? announced.size ?? totalSize(response), gitBlob };
}

/**
 * The digests of the bytes, fed as they arrive: their sha256, and the git blob id when one is expected (git hashes
 * "blob SIZE\0" first: with the size known before the first byte it is hashed as the bytes arrive; without it
 * (a chunked answer) the finished bytes are hashed again from the file they were written to).
 */
class Digests {
  private readonly sha256 = createHash('sha256');
  private readonly gitBlob?: Hash;
  /** A blob id is expected but the size was not known up front: blobOf() hashes the written bytes at the end. */
  readonly blobLater: boolean;

  constructor(private readonly expected: Expected) {
    if (expected.gitBlob && expected.size !== undefined) this.gitBlob = blobHash(expected.gitBlob, expected.size);
    this.blobLater = Boolean(expected.gitBlob && expected.size === undefined);
  }

  update(chunk: Buffer): void {
    this.sha256.update(chunk);
    this.gitBlob?.update(chunk);
  }

  /** The result; `written` is the file holding all the bytes, for a blob id that could not be hashed on the way. */
  async digest(bytes: number, written?: string): Promise<Transferred> {
    let gitBlob = this.gitBlob?.digest('hex');
    if (this.blobLater && written) {
      const hash = blobHash(this.expected.gitBlob!, bytes);
      for await (const chunk of createReadStream(written)) hash.update(chunk as Buffer);
      gitBlob = hash.digest('hex');
    }
    return { bytes, sha256: this.sha256.digest('hex'), gitBlob, expected: this.expected };
  }
}

const blobHash = (id: string, size: number): Hash => createHash(id.length === 64 ? 'sha256' : 'sha1').update(`blob ${size}\0`);

interface Transferred {
  bytes: number;
  sha256: string;
  /** The git blob id of the bytes, when one was expected. */
  gitBlob?: string;
  expected: Expected;
}

/**
 * Streams a response body into fd, hashing as it goes. On a failed write (a full disk) the .part and its sidecar are
 * removed and the error says so; on a broken transfer the .part (and what --resume needs) is kept.
 */
async function transfer(response: HttpResponse, fd: number, digests: Digests, expected: Expected, start: number, files: { target: string; part: string; metaFile: string; leftover: string }, options: DownloadOptions, io: Io): Promise<Transferred> {
  const { target, part, metaFile, leftover } = files;
  const dropPart = () => [part, metaFile].forEach((file) => rmSync(file, { force: true }));
  try {
    writeFileAtomically(metaFile, JSON.stringify({ validator: validatorOf(response), total: expected.size } satisfies PartMeta), 'secret');
  } catch (error) {
    closeQuietly(fd);
    dropPart();
    await release(response);
    throw error instanceof WriteError ? new WriteError(target, error.reason) : error;
  }
  const progress = startProgress(io, { total: expected.size, start, label: options.description ?? basename(target) });
  let received = start;
  const writer = new StreamWriter(fd, target, start);
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
    if (error instanceof WriteError) {
      // Nothing to continue from: the bytes that could not be written are gone.
      dropPart();
      await release(response);
      throw error;
    }
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
  return digests.digest(received, part);
}

async function finish(result: Transferred, target: string, part: string, metaFile: string, options: DownloadOptions, io: Io): Promise<DownloadRecord> {
  const rejected = (problem: string, hint = 'the download was corrupted or the file changed while it was read; try again'): CliError => {
    rmSync(part, { force: true });
    rmSync(metaFile, { force: true });
    const nothing = options.temporary && options.extract ? `nothing was extracted into ${options.extract.dir}` : `nothing was written to ${target}`;
    return new CliError(`${problem}; ${nothing}`, ExitCode.server, hint);
  };
  const problem = mismatch(result);
  if (problem) throw rejected(problem);
  // An archive is checked whole before it gets its name: every zip entry's CRC-32, gzip's trailer, tar's structure.
  let inspected: ArchiveInfo | undefined;
  if (options.verify === 'archive' || options.extract) {
    const { inspectArchive } = await import('./extract.js');
    try {
      inspected = await inspectArchive(part, options.extract ? {} : { limits: false });
    } catch (error) {
      if (error instanceof CliError) throw rejected(error.message, error.hint);
      throw error;
    }
  }
  try {
    renameSync(part, target);
  } catch (error) {
    throw new WriteError(target, error, `the verified bytes are in ${part}`);
  }
  rmSync(metaFile, { force: true });
  const record: DownloadRecord = { path: target, bytes: result.bytes, sha256: result.sha256 };
  if (!options.temporary) io.note(`wrote ${result.bytes.toLocaleString('en-US')} bytes to ${target}${verifiedNote(result, inspected)}`);
  if (options.extract) {
    const { extractArchive } = await import('./extract.js');
    const entries = await extractArchive(target, options.extract.dir, { stripComponents: options.extract.stripComponents ?? 0, include: options.extract.include, warn: (text) => io.warn(text), inspected });
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
function verifiedNote(result: Transferred, archive?: ArchiveInfo): string {
  const checked = [result.expected.sha256 && 'sha256', result.gitBlob && 'blob id', archive && `${archive.format} archive`].filter(Boolean);
  return checked.length ? ` (${checked.join(' and ')} verified)` : '';
}

/**
 * To stdout or a device: streamed in order, verified at the end (the bytes are out by then: the exit code says so).
 * A blob id without a size up front is hashed from a private copy of the bytes kept for that.
 */
async function streamOut(response: HttpResponse, out: { write(chunk: Buffer): Promise<void>; name: string }, options: DownloadOptions, io: Io): Promise<Transferred> {
  const expected = expectedOf(response, options);
  const digests = new Digests(expected);
  let bytes = 0;
  let spool: { dir: string; file: string; writer: StreamWriter; fd: number } | undefined;
  if (digests.blobLater) {
    const dir = mkdtempSync(join(tmpdir(), 'forgectl-blob-'));
    const file = join(dir, 'blob');
    const fd = createNew(file, 'secret');
    spool = { dir, file, fd, writer: new StreamWriter(fd, file, 0) };
  }
  const progress = startProgress(io, { total: expected.size, start: 0, label: options.description ?? 'download' });
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      digests.update(chunk);
      await spool?.writer.write(chunk);
      bytes += chunk.length;
      await out.write(chunk);
      progress.update(bytes);
    }
    progress.done(bytes);
    await spool?.writer.finish();
    return await digests.digest(bytes, spool?.file);
  } finally {
    if (spool) {
      await spool.writer.settle();
      closeQuietly(spool.fd);
      rmSync(spool.dir, { recursive: true, force: true });
    }
  }
}

async function toStream(source: DownloadSource, options: DownloadOptions, io: Io): Promise<void> {
  const response = await source.open();
  const stdout = io.streams.stdout;
  const write = async (chunk: Buffer): Promise<void> => {
    if (!stdout.write(chunk)) await new Promise<void>((resolve) => stdout.once('drain', () => resolve()));
  };
  const problem = mismatch(await streamOut(response, { write, name: 'stdout' }, options, io));
  if (problem) throw new CliError(`${problem}; the bytes written to stdout are not what the service announced`, ExitCode.server);
}

/** -O onto a device or FIFO: opened as it is (no create, no truncate, never replaced), written in order. */
async function toDevice(source: DownloadSource, target: string, options: DownloadOptions, io: Io): Promise<DownloadRecord> {
  const response = await source.open();
  let fd: number;
  try {
    fd = await new Promise<number>((ok, fail) => open(target, constants.O_WRONLY | (constants.O_NOCTTY ?? 0), (error, opened) => (error ? fail(error) : ok(opened))));
  } catch (error) {
    await release(response);
    throw new WriteError(target, error);
  }
  const writer = new StreamWriter(fd, target, undefined);
  let result: Transferred;
  try {
    result = await streamOut(response, { write: (chunk) => writer.write(chunk), name: target }, options, io);
    await writer.finish();
  } catch (error) {
    await release(response);
    throw error;
  } finally {
    await writer.settle();
    closeQuietly(fd);
  }
  const problem = mismatch(result);
  if (problem) throw new CliError(`${problem}; the bytes written to ${target} are not what the service announced`, ExitCode.server);
  if (!options.temporary) io.note(`wrote ${result.bytes.toLocaleString('en-US')} bytes to ${target}${verifiedNote(result)}`);
  return { path: target, bytes: result.bytes, sha256: result.sha256 };
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

/** The sidecar of a FILE.part, read without following a link; empty when missing, not ours or damaged. */
function readMeta(file: string): PartMeta {
  try {
    const meta = JSON.parse(readOwnFile(file) ?? '{}') as PartMeta;
    return { validator: typeof meta.validator === 'string' ? meta.validator : undefined, total: typeof meta.total === 'number' ? meta.total : undefined };
  } catch {
    return {};
  }
}

async function hashFile(path: string, digests: Digests): Promise<void> {
  for await (const chunk of createReadStream(path)) digests.update(chunk as Buffer);
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

/** What a DownloadResult does when it is written: a one-shot body stream becomes a source that cannot resume. */
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
