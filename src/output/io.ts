import { fstatSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { visible } from './formats.js';
import { plural } from '../parse.js';
import { wrapMessage } from './wrap.js';

export interface Streams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & {
    isTTY?: boolean;
    columns?: number;
    /** Only where the help texts are rendered at build time: help is written with its layout deferred (cli/help-layout.ts). */
    deferHelpLayout?: boolean;
  };
  stderr: Writable & { isTTY?: boolean; columns?: number };
}

/**
 * Messages for stderr (errors, hints, warnings, notes): on a terminal, broken at white space to its width, where the
 * terminal would break them mid-word; to a pipe or a file one line each, as scripts grep them.
 */
export function forStderr(stderr: Streams['stderr'], text: string): string {
  return stderr.isTTY && stderr.columns ? wrapMessage(text, stderr.columns) : text;
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const noSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/** Thrown by Io.out once stdout was closed by its reader (`| head -1`): the run ends quietly with exit 0. */
export class OutputClosed extends Error {
  constructor() {
    super('stdout was closed');
    this.name = 'OutputClosed';
  }
}

/** The changing requests in flight, counting every one ever sent (a run that sent one is changing things). */
export class ChangesInFlight extends Set<{ what: string }> {
  sent = 0;
  override add(change: { what: string }): this {
    this.sent++;
    return super.add(change);
  }
}

/**
 * What has been written of the data on stdout, so a run that fails or is interrupted part-way can say so (and close
 * a JSON array it opened), and whether the reader closed stdout.
 */
export class OutputState {
  /** Records of a list written so far (undefined while no list is being written). */
  records?: number;
  /** Text that completes the output started (the `]` of a JSON array), written when a list ends early. */
  closer = '';
  /** The list was written to the end. */
  complete = false;
  stdoutClosed = false;
  /** Why stdout could not be written (a full disk, an I/O error): the run fails saying so, whatever it did. */
  stdoutFailure?: NodeJS.ErrnoException;
  /** What a command leaves undone when interrupted, for the one line on stderr (the sandbox stops serving). */
  interruptNote?: string;
  /**
   * The command ends itself on a signal, with 130/143 and its own message, after finishing a step that must not be
   * cut (a token rotation waiting for the answer that holds the new token): main waits for it.
   */
  endsItselfOnInterrupt = false;
  /** Changing requests sent and not yet answered ("POST /projects/1/hooks"): a signal now leaves their outcome unknown. */
  readonly changesInFlight = new ChangesInFlight();
  /**
   * A run over many items (projects, changes) says, when interrupted, which were done, which in flight and which
   * never started: the lines of that block.
   */
  interruptReport?: () => string[];
  /** The spinner drawn on stderr, if any: other text on the terminal is written with it cleared; a signal stops it. */
  spinner?: { clear(): unknown; render(): unknown; stop(): unknown };

  /** One line saying what was left out, when a list was cut short; undefined when nothing is missing. */
  incompleteNote(): string | undefined {
    if (this.records === undefined || this.complete || this.records === 0) return undefined;
    return `output is incomplete: ${plural(this.records, 'record')} written`;
  }
}

/**
 * An error of stdout: its reader went away (`| head -1`: EPIPE, a quiet end), or the bytes could not be written (a full
 * disk under `> out.json`, an I/O error: a failure the run must not end with exit 0).
 */
export function noteStdoutError(state: OutputState, error: unknown): void {
  state.stdoutClosed = true;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code !== 'EPIPE' && code !== 'ECONNRESET' && !code.startsWith('ERR_STREAM')) state.stdoutFailure ??= error as NodeJS.ErrnoException;
}

/** The terminal: data to stdout, everything else to stderr; knows whether each end is a terminal. */
export class Io {
  constructor(
    readonly streams: Streams,
    readonly options: { quiet: boolean; color: boolean },
    readonly state: OutputState = new OutputState(),
  ) {}

  get stdoutIsTTY(): boolean {
    return Boolean(this.streams.stdout.isTTY);
  }
  get stderrIsTTY(): boolean {
    return Boolean(this.streams.stderr.isTTY);
  }
  /** Prompts need both ends to be a terminal. */
  get interactive(): boolean {
    return Boolean(this.streams.stdin.isTTY && this.streams.stdout.isTTY);
  }

  /**
   * Writes data to stdout, waiting when the pipe is full (keeps memory flat on long streams). Throws OutputClosed
   * once the reader has gone away.
   */
  async out(text: string | Uint8Array): Promise<void> {
    const stdout = this.streams.stdout;
    if (this.state.stdoutClosed || stdout.destroyed) throw new OutputClosed();
    if (this.aside(this.stdoutIsTTY, () => stdout.write(text))) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: unknown) => {
        stdout.off('drain', done);
        stdout.off('error', done);
        stdout.off('close', done);
        if (error || this.state.stdoutClosed || stdout.destroyed) reject(new OutputClosed());
        else resolve();
      };
      stdout.on('drain', done);
      stdout.on('error', done);
      stdout.on('close', done);
    });
  }

  /** Hints and notices: suppressed by --quiet. Text from the server in them cannot drive the terminal. */
  note(text: string): void {
    if (!this.options.quiet) this.writeErr(`${forStderr(this.streams.stderr, stderrText(text))}\n`);
  }

  /** Warnings are shown even with --quiet: they concern safety. */
  warn(text: string): void {
    this.writeErr(`${forStderr(this.streams.stderr, `warning: ${stderrText(text)}`)}\n`);
  }

  async readStdin(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.streams.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }

  async readStdinBuffer(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.streams.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }

  /** Whether stdout is a pipe: its reader (a pager, `head`) may be drawing on the terminal stderr shares. */
  get stdoutIsPipe(): boolean {
    const fd = (this.streams.stdout as { fd?: unknown }).fd;
    try {
      return typeof fd === 'number' && fstatSync(fd).isFIFO();
    } catch {
      return false;
    }
  }

  /** Whether stdout is /dev/null (`>/dev/null 2>&1` at the end of a crontab line): what is printed there is gone. */
  get stdoutIsNull(): boolean {
    const fd = (this.streams.stdout as { fd?: unknown }).fd;
    try {
      if (typeof fd !== 'number') return false;
      const out = fstatSync(fd);
      return out.isCharacterDevice() && out.rdev === statSync('/dev/null').rdev;
    } catch {
      return false;
    }
  }

  /** A spinner on a terminal's stderr; a no-op elsewhere, with --quiet, or when stdout goes to a pipe. */
  async spinner(text: string): Promise<Spinner> {
    // A terminal that reports no width (some pseudo-terminals) makes spinners redraw endlessly: skip them there.
    // So does a stream that calls itself a terminal but cannot move its cursor (it is not one).
    const stderr = this.streams.stderr as { columns?: number; cursorTo?: unknown };
    if (this.options.quiet || !this.stderrIsTTY || (stderr.columns ?? 0) <= 0 || typeof stderr.cursorTo !== 'function') return noSpinner;
    // `forgectl … | less`: the pager owns the screen, and frames drawn on stderr would land in the middle of it.
    if (this.stdoutIsPipe) return noSpinner;
    const { default: ora } = await import('ora');
    // Input typed meanwhile is left alone (ora would discard it, and Ctrl-C must reach the run as a signal).
    const spinner = ora({ text: stderrText(text), stream: this.streams.stderr as NodeJS.WritableStream, color: 'cyan', isEnabled: true, discardStdin: false }).start();
    this.state.spinner = spinner;
    const done = (end: () => void) => {
      if (this.state.spinner === spinner) this.state.spinner = undefined;
      end();
    };
    return {
      update: (t) => void (spinner.text = stderrText(t)),
      succeed: (t) => done(() => spinner.succeed(t && stderrText(t))),
      fail: (t) => done(() => spinner.fail(t && stderrText(t))),
      stop: () => done(() => spinner.stop()),
    };
  }

  /** Text for stderr as it is (a project's own lines in a fleet run), written around a spinner on the terminal. */
  writeErr(text: string): void {
    this.aside(true, () => this.streams.stderr.write(text));
  }

  /** Writes with the spinner cleared, then draws it again, when the text shares the terminal with it. */
  private aside<R>(sharesTheScreen: boolean, write: () => R): R {
    const spinner = sharesTheScreen ? this.state.spinner : undefined;
    spinner?.clear();
    try {
      return write();
    } finally {
      spinner?.render();
    }
  }
}

/** Lines for stderr: control characters (a project's or a license holder's name may carry them) made visible. */
const stderrText = (text: string): string => visible(text.replace(/\r/g, '\\r'));
