import { MAX_WAIT_MS } from './retry.js';
import { plural } from '../parse.js';

/** A budget that is spent but resets "now" still gets a short pause: the clocks are only known to the second. */
const MIN_HOLD_MS = 250;

type HeaderGetter = (name: string) => string | undefined;

/**
 * One rate budget for every request of a run. Commands that work on many projects at once (fleet operations, plan
 * and apply) activate it; every request then passes through wait() first. It reads RateLimit-Remaining and
 * RateLimit-Reset of each answer: when what remains would not cover the requests that may already be in flight
 * (the reserve: the concurrency), every worker is held until the window resets. A 429's wait (Retry-After, then
 * RateLimit-Reset) holds every worker too, not only the one that got it: the budget is the caller's, not the
 * request's.
 */
export class RateGate {
  /** Epoch ms before which no request starts. */
  private until = 0;
  private active = false;
  /** Requests that may be in flight when an answer says how much budget is left. */
  private reserve = 0;
  /** With a budget of our own (--rate-limit): the time between request starts, and when the next may start. */
  private interval = 0;
  private nextStart = 0;
  /** Up to when the time requests were held is counted (waits of concurrent requests overlap). */
  private countedUntil = 0;
  /** What the gate did, for the summary of a fleet run: holds a request really waited for, and how long. */
  readonly stats = { holds: 0, heldMs: 0, rateLimited: 0 };

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** What the gate did, for a summary line: "waited 3.1 s for the rate limit; 2 answers 429, honoured" (or ''). */
  summary(): string {
    const parts = [
      this.stats.holds ? `waited ${(this.stats.heldMs / 1000).toFixed(1)} s for the rate limit` : '',
      this.stats.rateLimited ? `${plural(this.stats.rateLimited, 'answer')} 429, honoured` : '',
    ].filter(Boolean);
    return parts.join('; ');
  }

  /** Starts pacing by the answers' budget; `concurrency` requests may be in flight at once. */
  activate(concurrency: number): void {
    this.active = true;
    this.reserve = Math.max(1, concurrency);
  }

  /**
   * A budget of the caller's own, for services that send no RateLimit headers: at most `limit` requests per
   * `periodMs`, their starts spaced evenly (so no window of that length holds more, wherever it starts).
   */
  pace(limit: number, periodMs: number): void {
    this.interval = periodMs / limit;
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Resolves when a request may start. */
  async wait(): Promise<void> {
    for (;;) {
      const now = this.now();
      const left = this.until - now;
      if (left <= 0) {
        if (!this.interval) return;
        // The next slot of the budget is this request's; a later one waits for the slot after.
        const start = Math.max(now, this.nextStart);
        this.nextStart = start + this.interval;
        if (start > now) await this.sleep(start - now);
        return;
      }
      // A hold counts once a request waits for it, and the time once however many requests wait together.
      if (this.until > this.countedUntil) {
        if (this.countedUntil <= now) this.stats.holds++;
        this.stats.heldMs += this.until - Math.max(now, this.countedUntil);
        this.countedUntil = this.until;
      }
      await this.sleep(left);
    }
  }

  /** Holds every request for `ms` from now (longer holds win). */
  hold(ms: number): void {
    const until = this.now() + Math.min(Math.max(0, ms), MAX_WAIT_MS);
    if (until > this.until) this.until = until;
  }

  /**
   * Reads an answer's budget. A 429 is counted (its wait is held by the HTTP client, which computed it); a
   * remaining budget at or below the reserve holds everyone until RateLimit-Reset, measured against the answer's
   * own Date header so a skewed local clock does not shorten the wait.
   */
  observe(status: number, header: HeaderGetter): void {
    if (!this.active) return;
    if (status === 429) this.stats.rateLimited++;
    const remaining = Number(header('ratelimit-remaining'));
    const reset = Number(header('ratelimit-reset'));
    if (!header('ratelimit-remaining') || !Number.isFinite(remaining) || remaining > this.reserve || !Number.isFinite(reset) || reset <= 0) return;
    // Epoch seconds (as the service sends them), or seconds to wait (the IETF draft's RateLimit headers). The Date
    // header has whole seconds, so the wait measured from it is never shorter than the real one.
    const serverNow = Date.parse(header('date') ?? '');
    const wait = reset > 1e9 ? reset * 1000 - (Number.isNaN(serverNow) ? this.now() : serverNow) : reset * 1000;
    this.hold(Math.max(wait, MIN_HOLD_MS));
  }
}
