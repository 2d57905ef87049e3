/** The retry policy of contract §7, as pure functions so it can be tested without a clock. */

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
export const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** The longest wait forgectl accepts from Retry-After / RateLimit-Reset before giving up instead. */
export const MAX_WAIT_MS = 60_000;

/**
 * 'auto': the policy by method (a POST only when the server provably did not act on it); 'never': sent once (token
 * rotation), again only after a 429 (a refusal: the server did not act on it); 'repeatable': retried as a GET is
 * whatever the method (a POST that only reads: a GraphQL query); 'caller': sent once, a 429 included, whose wait the
 * caller honours itself (webhook resends, paced to the service's limit: one layer waits, and says how long).
 */
export type RetryMode = 'auto' | 'never' | 'repeatable' | 'caller';

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
 * How long to wait before retry number `attempt` (0-based): what the server asks (serverWaitMs), else exponential
 * backoff with full jitter.
 */
export function retryDelayMs(attempt: number, header: HeaderGetter, now: number, random: () => number = Math.random, status = 429): number {
  const asked = serverWaitMs(header, now, status);
  if (asked !== undefined) return asked;
  const cap = Math.min(30_000, 500 * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/**
 * The wait the server asks for: Retry-After, then (for a 429) RateLimit-ResetTime or RateLimit-Reset; undefined when
 * it asks none. RateLimit-* headers are on every response, so they only count when the answer was a 429.
 */
export function serverWaitMs(header: HeaderGetter, now: number, status = 429): number | undefined {
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
  return undefined;
}

/** A wait in words, rounded up: "45 s", "3 min", "1 h", "1 h 30 min". */
export function waitInWords(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

/**
 * A 429 whose wait is longer than forgectl waits, in words: what the server asked, and when to try again. Undefined
 * for any other answer (a 429 with a short wait failed because the retries ran out).
 */
export function tooLongWait(status: number, header: HeaderGetter, now: number): { message: string; hint: string } | undefined {
  const asked = status === 429 ? serverWaitMs(header, now) : undefined;
  if (asked === undefined || asked <= MAX_WAIT_MS) return undefined;
  const words = waitInWords(asked);
  const at = new Date(now + asked).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    message: `the server asks to wait ${words} before retrying; forgectl waits at most ${MAX_WAIT_MS / 1000} s`,
    hint: `nothing was changed (the server refused the request): run it again after ${words} (after ${at})`,
  };
}
