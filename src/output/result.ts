import type { Readable } from 'node:stream';

/** Text a command hands over verbatim whatever the output format (a token for scripts, a raw file). */
export class TextResult {
  constructor(readonly text: string) {}
}

/**
 * What a command returns when it finished and rendered its output but must still end with a non-zero exit code
 * (9: an audit found what it looks for). `message` goes to stderr as a notice, not as an error.
 */
export class ResultWithExit {
  constructor(
    readonly result: unknown,
    readonly exitCode: number,
    readonly message?: string,
  ) {}
}

/** A binary or raw body to write to --output-file (atomically) or to a non-terminal stdout. */
export class DownloadResult {
  constructor(
    readonly body: Readable | AsyncIterable<Uint8Array>,
    readonly options: { outputFile?: string; size?: number; description?: string; sha256?: string } = {},
  ) {}
}
