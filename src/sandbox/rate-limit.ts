import type { SandboxResponse } from './http.js';

/**
 * The throttle of API requests (requests per period, counted for everyone together), as the service's Rack::Attack
 * throttle: RateLimit headers on every API answer, and 429 with Retry-After beyond the limit.
 */
export class Throttle {
  private readonly periodMs: number;
  private window = 0;
  private count = 0;

  constructor(private readonly limit: number, periodSeconds = 60) {
    this.periodMs = periodSeconds * 1000;
  }

  /** Counts a request in the current window and returns the RateLimit headers every API answer carries. */
  countRequest(): Record<string, string> {
    const window = Math.floor(Date.now() / this.periodMs);
    if (this.window !== window) {
      this.window = window;
      this.count = 0;
    }
    this.count++;
    return {
      'RateLimit-Name': 'throttle_authenticated_api',
      'RateLimit-Limit': String(this.limit),
      'RateLimit-Observed': String(this.count),
      'RateLimit-Remaining': String(Math.max(0, this.limit - this.count)),
      'RateLimit-Reset': String(Math.ceil(((window + 1) * this.periodMs) / 1000)),
    };
  }

  /** The 429 answer (with the headers of the count just made) when the request is beyond the limit. */
  refusal(budget: Record<string, string>): { response: SandboxResponse; headers: Record<string, string>; retryAfter: number } | undefined {
    if (this.count <= this.limit) return undefined;
    const resetAt = (this.window + 1) * this.periodMs;
    const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
    const throttled = { 'RateLimit-ResetTime': new Date(resetAt).toUTCString(), 'Retry-After': String(retryAfter) };
    return { response: { status: 429, raw: { data: 'Retry later\n', contentType: 'text/plain' } }, headers: { ...budget, ...throttled }, retryAfter };
  }
}
