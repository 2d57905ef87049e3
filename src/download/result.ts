import type { Readable } from 'node:stream';
import { WrittenResult } from '../output/result.js';
import type { Io } from '../output/io.js';
import type { DownloadOptions, DownloadSource } from './engine.js';

/**
 * A download for the engine (src/download/engine.ts) to write to --output-file (through FILE.part, verified, renamed)
 * or to a non-terminal stdout. The source is a request that can be repeated from an offset (apiSource: --resume
 * works), or a body stream that is read once. The engine is loaded only when the download is written.
 */
export class DownloadResult extends WrittenResult {
  constructor(
    readonly source: DownloadSource | Readable | AsyncIterable<Uint8Array>,
    readonly options: DownloadOptions = {},
  ) {
    super();
  }

  async write(io: Io): Promise<object | undefined> {
    const { runDownload } = await import('./engine.js');
    return runDownload(this, io);
  }
}
