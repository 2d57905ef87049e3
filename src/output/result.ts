import type { Io } from './io.js';

/** Text a command hands over verbatim whatever the output format (a token for scripts, a raw file). */
export class TextResult {
  constructor(
    readonly text: string,
    /** The text's own colours are meant for the terminal: server text in it was already made visible by its maker. */
    readonly painted = false,
  ) {}
}

/**
 * A JSON answer with the text it was parsed from (`api`): --jq reads the text, so that numbers keep the form they were
 * written in (100000000000000000001, 1.0, -0) as jq keeps them; every other output shows the parsed value.
 */
export class JsonAnswer {
  constructor(
    readonly value: unknown,
    readonly text: string,
  ) {}
}

/**
 * Records with the sentence that sums them up, for a notice after them ("no runner without contact for 30d; checked
 * 4"): where that sentence says the list is empty, a terminal's table adds no "no results" of its own.
 */
export class Summarised {
  constructor(
    readonly rows: unknown[],
    readonly summary: string,
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
 * What a command returns when its output is bytes its own engine writes (a download to --output-file or a
 * non-terminal stdout), not records to render: render() hands it the output and shows the record it gives back, if
 * any. src/download/result.ts has the one kind there is.
 */
export abstract class WrittenResult {
  abstract write(io: Io): Promise<object | undefined>;
}
