import type { Readable } from 'node:stream';
import type { DownloadOptions, DownloadSource } from '../download/engine.js';

/** Text a command hands over verbatim whatever the output format (a token for scripts, a raw file). */
export class TextResult {
  constructor(
    readonly text: string,
    /** The text's own colours are meant for the terminal: server text in it was already made visible by its maker. */
    readonly painted = false,
  ) {}
}

/**
 * What a command returns when it finished and rendered its output but must still end with a non-zero exit code
 * (9: an audit found what it looks for). `message` goes to stderr as a notice, not as an error. Both are read after
 * the result was rendered, so a streamed result may settle them as it ends (a fleet run's summary).
 */
export class ResultWithExit {
  constructor(
    readonly result: unknown,
    public exitCode: number,
    public message?: string,
  ) {}
}

/**
 * A download for the engine (src/download/engine.ts) to write to --output-file (through FILE.part, verified, renamed)
 * or to a non-terminal stdout. The source is a request that can be repeated from an offset (apiSource: --resume
 * works), or a body stream that is read once.
 */
export class DownloadResult {
  constructor(
    readonly source: DownloadSource | Readable | AsyncIterable<Uint8Array>,
    readonly options: DownloadOptions = {},
  ) {}
}
