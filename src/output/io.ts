import type { Readable, Writable } from 'node:stream';

export interface Streams {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
}

export interface Spinner {
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const noSpinner: Spinner = { update() {}, succeed() {}, fail() {}, stop() {} };

/** The terminal: data to stdout, everything else to stderr; knows whether each end is a terminal. */
export class Io {
  constructor(
    readonly streams: Streams,
    readonly options: { quiet: boolean; color: boolean },
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

  /** Writes data to stdout, waiting when the pipe is full (keeps memory flat on long streams). */
  async out(text: string): Promise<void> {
    if (!this.streams.stdout.write(text)) {
      await new Promise<void>((resolve) => this.streams.stdout.once('drain', () => resolve()));
    }
  }

  /** Hints and notices: suppressed by --quiet. */
  note(text: string): void {
    if (!this.options.quiet) this.streams.stderr.write(`${text}\n`);
  }

  /** Warnings are shown even with --quiet: they concern safety. */
  warn(text: string): void {
    this.streams.stderr.write(`warning: ${text}\n`);
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

  /** A spinner on a terminal's stderr; a no-op elsewhere or with --quiet. */
  async spinner(text: string): Promise<Spinner> {
    // A terminal that reports no width (some pseudo-terminals) makes spinners redraw endlessly: skip them there.
    const columns = (this.streams.stderr as { columns?: number }).columns ?? 0;
    if (this.options.quiet || !this.stderrIsTTY || columns <= 0) return noSpinner;
    const { default: ora } = await import('ora');
    const spinner = ora({ text, stream: this.streams.stderr as NodeJS.WritableStream, color: 'cyan', isEnabled: true }).start();
    return {
      update: (t) => void (spinner.text = t),
      succeed: (t) => void spinner.succeed(t),
      fail: (t) => void spinner.fail(t),
      stop: () => void spinner.stop(),
    };
  }
}
