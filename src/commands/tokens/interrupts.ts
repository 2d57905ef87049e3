import type { Context } from '../../cli/command.js';
import { CliError, ExitCode } from '../../errors.js';

export type Signal = 'SIGINT' | 'SIGTERM';

/**
 * SIGINT and SIGTERM while a rotation runs. Elsewhere a signal ends the run at once; a rotation instead notes it
 * and decides at its next step how to stop: before the request nothing was sent; in flight it waits briefly for the
 * answer; after the answer the token is in the recovery file. Synchronous steps (the recovery file's write) are
 * never cut: the signal is seen between them. (A second signal still ends the process at once.)
 */
export class Interrupts {
  /** The signal received, once one was. */
  received?: Signal;
  private readonly signalled: Promise<Signal>;

  constructor(ctx: Context) {
    // The run ends itself: main waits for it instead of ending it at the signal.
    ctx.io.state.endsItselfOnInterrupt = true;
    this.signalled = ctx.interrupted.then((signal) => (this.received = signal));
  }

  /** The value of `work`; when a signal comes first (or came already), whatever `onSignal` makes of it. */
  async race<T>(work: Promise<T>, onSignal: (signal: Signal) => Promise<T>): Promise<T> {
    const outcome = this.received
      ? { signal: this.received }
      : await Promise.race([work.then((value) => ({ value })), this.signalled.then((signal) => ({ signal }))]);
    if ('value' in outcome) return outcome.value;
    work.catch(() => undefined); // settled later or never; its failure no longer matters
    return onSignal(outcome.signal);
  }

  /** Throws the error `stop` builds when a signal has been received. */
  checkpoint(stop: (signal: Signal) => CliError): void {
    if (this.received) throw stop(this.received);
  }
}

/** 130 for SIGINT, 143 for SIGTERM; the message says what was done and what was left undone. */
export function interrupted(signal: Signal, message: string, hint?: string): CliError {
  return new CliError(`interrupted (${signal}) ${message}`, signal === 'SIGINT' ? ExitCode.interrupted : ExitCode.terminated, hint);
}
