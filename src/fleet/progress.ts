import type { Io, Spinner } from '../output/io.js';
import { pluralNoun } from '../parse.js';

/** How a run names its work: "applying", and one item and several ("change", "changes"). */
export interface ProgressWords {
  verb: string;
  noun: string;
  nouns?: string;
}

/** How many names a line of the interruption report lists before "… (N more)". */
const NAMED = 5;

/**
 * The progress of a run over many items (the projects of a fleet command, the projects and groups a plan compares,
 * the changes apply makes): a spinner on a terminal's stderr ("applying 3/20 changes…"), nothing in a pipe or with
 * --quiet; and, should the run be interrupted, which items were done, which were in flight and which never started.
 */
export class Progress<T> {
  private items: readonly T[] = [];
  private readonly done = new Set<T>();
  private readonly running = new Set<T>();
  private spinner?: Spinner;
  private words: ProgressWords;

  constructor(
    private readonly io: Pick<Io, 'spinner'> | undefined,
    words: ProgressWords,
    private readonly label: (item: T) => string = String,
  ) {
    this.words = words;
  }

  /** The items of the run (the spinner starts); `words` when they are known only now ("projects and groups"). */
  async begin(items: readonly T[], words?: ProgressWords): Promise<void> {
    this.items = items;
    if (words) this.words = words;
    if (this.io && items.length) this.spinner = await this.io.spinner(this.text());
  }

  /** Whether the items are known (begin was called with some). */
  get begun(): boolean {
    return this.items.length > 0;
  }

  start(item: T): void {
    this.running.add(item);
  }

  finish(item: T): void {
    this.running.delete(item);
    this.done.add(item);
    this.spinner?.update(this.text());
  }

  /** Draws the spinner again after stop() (a question was asked meanwhile). */
  async resume(): Promise<void> {
    if (this.io && !this.spinner && this.items.length) this.spinner = await this.io.spinner(this.text());
  }

  /** Clears the spinner (before the output it precedes); the interruption report still knows the run. */
  stop(): void {
    this.spinner?.stop();
    this.spinner = undefined;
  }

  /** "applying 3/20 changes…" */
  text(): string {
    return `${this.words.verb} ${this.done.size}/${this.items.length} ${this.nouns(this.items.length)}…`;
  }

  private nouns(count: number): string {
    return pluralNoun(count, this.words.noun, this.words.nouns);
  }

  /** The items not done: in flight or never started, in the run's order. */
  left(): T[] {
    return this.items.filter((item) => !this.done.has(item));
  }

  /** What an interruption left, one line each: done, in flight, never started (empty lines left out). */
  report(): string[] {
    if (!this.items.length) return [];
    const names = (items: T[]): string => {
      const shown = items.slice(0, NAMED).map(this.label).join(', ');
      return items.length > NAMED ? `${shown}, … (${items.length - NAMED} more)` : shown;
    };
    const total = this.items.length;
    const running = this.items.filter((item) => this.running.has(item));
    const waiting = this.items.filter((item) => !this.done.has(item) && !this.running.has(item));
    return [
      `  done: ${this.done.size} of ${total} ${this.nouns(total)}${this.done.size ? ` (${names(this.items.filter((item) => this.done.has(item)))})` : ''}`,
      running.length ? `  in flight: ${running.length} (${names(running)})` : '',
      waiting.length ? `  never started: ${waiting.length} (${names(waiting)})` : '',
    ].filter(Boolean);
  }
}
