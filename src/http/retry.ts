/** The retry policy of contract §7, as pure functions so it can be tested without a clock. */

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** The longest wait forgectl accepts from Retry-After / RateLimit-Reset before giving up instead. */
export const MAX_WAIT_MS = 60_000;

/**
 * 'auto': the policy by method (a POST only when the server provably did not act on it); 'never': sent once (token
 * rotation); 'repeatable': retried as a GET is whatever the method (a POST that only reads: a GraphQL query).
 */
export type RetryMode = 'auto' | 'never' | 'repeatable';

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** May this failed attempt be sent again? `sentMaybe`: the request may have reached the server. */
export function mayRetry(method: string, failure: { status?: number; sentMaybe?: boolean; permanent?: boolean }): boolean {
  if (failure.status !== undefined) {
    if (!RETRYABLE_STATUS.has(failure.status)) return false;
    // A 429 is a refusal: the server did not act on it, whatever the method.
    return failure.status === 429 || isIdempotent(method);
  }
  if (failure.permanent) return false;
  return isIdempotent(method) || failure.sentMaybe === false;
}

type HeaderGetter = (name: string) => string | undefined;

/**
 * How long to wait before retry number `attempt` (0-based): Retry-After, then (for a 429) RateLimit-ResetTime or
 * RateLimit-Reset, then exponential backoff with full jitter. RateLimit-* headers are on every response, so they
 * only count when the answer was a 429.
 */
export function retryDelayMs(attempt: number, header: HeaderGetter, now: number, random: () => number = Math.random, status = 429): number {
  const retryAfter = header('retry-after');
  if (retryAfter !== undefined && retryAfter !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const resetTime = status === 429 ? header('ratelimit-resettime') : undefined;
  if (resetTime) {
    const date = Date.parse(resetTime);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = status === 429 ? header('ratelimit-reset') : undefined;
  if (reset && /^\d+$/.test(reset)) {
    const value = Number(reset);
    // Epoch seconds per api-facts §4; small values are read as seconds to wait (draft IETF RateLimit headers).
    return Math.max(0, value > 1e9 ? value * 1000 - now : value * 1000);
  }
  const cap = Math.min(30_000, 500 * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}
