import { PassThrough, type Readable } from 'node:stream';
import { CliError, ExitCode } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import { contentRangeStart, totalSize, type DownloadSource } from './engine.js';
import { damaged, loadYauzl, ZIP_OPTIONS, zipEntries, type ZipEntryInfo } from './extract.js';

/** How much is read at once: the central directory's records come from memory until a read passes its end. */
const READ_AHEAD = 1024 * 1024;

/**
 * The entries of a zip archive on the service, read with byte ranges: the end of the archive and its central
 * directory, a few small requests instead of the whole file. Undefined when the service does not serve ranges (the
 * caller then downloads the archive).
 */
export async function listRemoteZip(source: DownloadSource): Promise<ZipEntryInfo[] | undefined> {
  const probe = await source.open({ start: 0, end: 0 });
  const announced = totalSize(probe);
  await letGo(probe);
  if (probe.status !== 206 || announced === undefined) return undefined;
  const size = announced;
  const validator = probe.header('etag') ?? probe.header('last-modified');
  const yauzl = await loadYauzl();

  /** Serves yauzl's reads (the end of the archive, then one central directory record at a time) from chunks. */
  class RangeReader extends yauzl.RandomAccessReader {
    private chunk?: { start: number; data: Buffer };

    override _readStreamForRange(start: number, end: number): Readable {
      const out = new PassThrough();
      this.bytes(start, end).then((data) => out.end(data), (error: unknown) => out.destroy(error as Error));
      return out;
    }

    private async bytes(start: number, end: number): Promise<Buffer> {
      const chunk = this.chunk;
      if (chunk && start >= chunk.start && end <= chunk.start + chunk.data.length) return chunk.data.subarray(start - chunk.start, end - chunk.start);
      const response = await source.open({ start, end: Math.min(size, Math.max(end, start + READ_AHEAD)) - 1, validator });
      if (response.status !== 206 || contentRangeStart(response) !== start) {
        await letGo(response);
        throw new CliError('the archive changed while its entries were read', ExitCode.server, 'run the command again');
      }
      this.chunk = { start, data: await response.buffer() };
      return this.chunk.data.subarray(0, end - start);
    }
  }

  const zip = await new Promise<import('yauzl').ZipFile>((ok, fail) =>
    yauzl.fromRandomAccessReader(new RangeReader(), size, ZIP_OPTIONS, (error, z) => (error ? fail(error instanceof CliError ? error : damaged(error)) : ok(z))),
  );
  return zipEntries(zip);
}

/** Lets go of an answer's body: a short one is read to its end (the connection stays open), a long one cut off. */
async function letGo(response: HttpResponse): Promise<void> {
  await response.body.dump().catch(() => undefined);
}
