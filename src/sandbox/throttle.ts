import type { Db } from './db.js';
import { HttpError, type SandboxRequest } from './http.js';

/**
 * The user and IP rate limits of the application settings (`throttle_authenticated_api_enabled`, …), enforced as
 * the service's Rack::Attack throttles: authenticated requests are counted per user, unauthenticated ones per IP
 * address, API and web apart, in fixed windows of `<name>_period_in_seconds`. Beyond `<name>_requests_per_period` a
 * request answers 429 "Retry later" with Retry-After; every counted answer carries the RateLimit headers.
 */

interface Window {
  window: number;
  count: number;
}

const counters = new WeakMap<Db, Map<string, Window>>();

/** Counts the request against the throttle that applies to it; the RateLimit headers, or 429 beyond the limit. */
export function throttle(req: SandboxRequest, api: boolean, address: string): Record<string, string> {
  // The settings record as a client last read or changed it (a fresh instance's throttles are all off).
  const settings = req.db.record<Record<string, unknown> | undefined>('application_settings', () => undefined);
  if (!settings) return {};
  const name = `throttle_${req.user ? 'authenticated' : 'unauthenticated'}_${api ? 'api' : 'web'}`;
  if (settings[`${name}_enabled`] !== true) return {};
  const limit = Number(settings[`${name}_requests_per_period`]);
  const periodMs = Number(settings[`${name}_period_in_seconds`]) * 1000;
  const key = `${name}:${req.user ? `user:${req.user.id}` : `ip:${address}`}`;
  let windows = counters.get(req.db);
  if (!windows) counters.set(req.db, (windows = new Map()));
  const nowMs = req.now().getTime();
  const window = Math.floor(nowMs / periodMs);
  const counter = windows.get(key);
  const current = counter && counter.window === window ? counter : { window, count: 0 };
  windows.set(key, current);
  current.count++;
  const resetAt = (window + 1) * periodMs;
  const headers = {
    'RateLimit-Name': name,
    'RateLimit-Limit': String(limit),
    'RateLimit-Observed': String(current.count),
    'RateLimit-Remaining': String(Math.max(0, limit - current.count)),
    'RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
  };
  if (current.count <= limit) return headers;
  const retryAfter = String(Math.max(1, Math.ceil((resetAt - nowMs) / 1000)));
  throw new HttpError(429, 'Retry later\n', { ...headers, 'RateLimit-ResetTime': new Date(resetAt).toUTCString(), 'Retry-After': retryAfter });
}
