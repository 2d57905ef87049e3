import { CliError, ExitCode } from '../../errors.js';

export type Signal = 'SIGINT' | 'SIGTERM';
const SIGNALS: Signal[] = ['SIGINT', 'SIGTERM'];

/**
 * SIGINT and SIGTERM while a rotation runs. Without a listener Node ends the process on the spot, mid-step and
 * silently; with this one a signal is only noted, and the rotation decides at its next step how to stop: before
 * the request nothing was sent; in flight it waits briefly for the answer; after the answer the token is in the
 * recovery file. Synchronous steps (the recovery file's write) are never cut: a listener runs between them.
 */
export class Interrupts {
  /** The first signal received. */
  received?: Signal;
  private waiting: Array<(signal: Signal) => void> = [];
  private readonly listener = (signal: Signal): void => {
    this.received ??= signal;
    for (const wake of this.waiting.splice(0)) wake(signal);
  };

  constructor(private readonly emitter: NodeJS.EventEmitter = process) {
    for (const signal of SIGNALS) emitter.on(signal, this.listener);
  }

  /** Resolves with the next signal. */
  next(): Promise<Signal> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The value of `work`; when a signal comes first (or came already), whatever `onSignal` makes of it. */
  async race<T>(work: Promise<T>, onSignal: (signal: Signal) => Promise<T>): Promise<T> {
    if (this.received) {
      work.catch(() => undefined);
      return onSignal(this.received);
    }
    const outcome = await Promise.race([work.then((value) => ({ value })), this.next().then((signal) => ({ signal }))]);
    if ('signal' in outcome) {
      work.catch(() => undefined); // settled later or never; its failure no longer matters
      return onSignal(outcome.signal);
    }
    return outcome.value;
  }

  /** Throws the error `stop` builds when a signal has been received. */
  checkpoint(stop: (signal: Signal) => CliError): void {
    if (this.received) throw stop(this.received);
  }

  dispose(): void {
    for (const signal of SIGNALS) this.emitter.off(signal, this.listener);
    this.waiting = [];
  }
}

/** 130 for SIGINT, 143 for SIGTERM; the message says what was done and what was left undone. */
export function interrupted(signal: Signal, message: string, hint?: string): CliError {
  return new CliError(`interrupted (${signal}) ${message}`, signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated, hint);
}
