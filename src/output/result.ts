import type { Readable } from 'node:stream';

/** Text a command hands over verbatim whatever the output format (a token for scripts, a raw file). */
export class TextResult {
  constructor(readonly text: string) {}
}

/** A binary or raw body to write to --output-file (atomically) or to a non-terminal stdout. */
export class DownloadResult {
  constructor(
    readonly body: Readable | AsyncIterable<Uint8Array>,
    readonly options: { outputFile?: string; size?: number; description?: string; sha256?: string } = {},
  ) {}
}
