/**
 * Paces requests to a service limit of `limit` per `windowMs` (webhook resends: 5 a minute per hook and user), so a
 * batch never runs into the limit, and backs off for a whole window when the service refuses anyway (another client
 * used the same allowance). Time comes from the caller, so tests run it on a fake clock.
 */
export class Pacer {
  private readonly sent: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** How long the next request would have to wait. */
  delay(): number {
    const now = this.now();
    while (this.sent.length && this.sent[0] <= now - this.windowMs) this.sent.shift();
    return this.sent.length < this.limit ? 0 : this.sent[0] + this.windowMs - now;
  }

  /** Waits until one more request fits in the window (telling `onWait` how long), and counts it as sent. */
  async take(onWait?: (ms: number) => void): Promise<void> {
    for (let wait = this.delay(); wait > 0; wait = this.delay()) {
      onWait?.(wait);
      await this.sleep(wait);
    }
    this.sent.push(this.now());
  }

  /** The service refused with 429: no more requests for `retryAfterMs`, or a whole window when it did not say. */
  refused(retryAfterMs?: number): void {
    const until = this.now() + (retryAfterMs ?? this.windowMs);
    this.sent.length = 0;
    for (let i = 0; i < this.limit; i++) this.sent.push(until - this.windowMs);
  }
}
