/** Redaction for --verbose and --dry-run: headers, URLs with credentials, and secret-looking body fields. */
export const REDACTED = '[REDACTED]';

const SECRET_HEADERS = new Set(['private-token', 'job-token', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const SECRET_QUERY = new Set(['private_token', 'job_token', 'access_token', 'token']);
const SECRET_KEY = /(^|_)(token|password|secret|api_key|private_key|license|approval_password|auth_password|build_key|key_value)$/i;

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Masks user:password in a URL and secret query parameters. Returns non-URLs unchanged. */
export function redactUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  let changed = false;
  if (url.username || url.password) {
    url.username = url.username ? '*****' : '';
    url.password = url.password ? '*****' : '';
    changed = true;
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_QUERY.has(key.toLowerCase())) {
      url.searchParams.set(key, REDACTED);
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

/** Deep copy of a JSON-like body with secret fields replaced and credentials in URLs masked. */
export function redactBody(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return key && SECRET_KEY.test(key) ? REDACTED : redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => redactBody(item, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined ? REDACTED : redactBody(v, k);
    return out;
  }
  return value;
}
