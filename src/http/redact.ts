/** Redaction for --verbose and --dry-run: headers, URLs with credentials, and secret-looking body fields. */
export const REDACTED = '[REDACTED]';

const SECRET_HEADERS = new Set(['private-token', 'job-token', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** Query parameters that carry a credential (`?token=`, `private_token=`, `secret=`, `api_key=`, `key=`, `sig=` …). */
const SECRET_QUERY = /^(?:[\w.-]*[_.-])?(?:token|secret|password|passwd|key|apikey|sig|signature|auth)$/i;
/**
 * Record fields that hold a secret: tokens, passwords, keys, and a chat integration's incoming `webhook`, whose URL
 * is the credential (anyone holding it can post to the channel).
 */
const SECRET_KEY = /(^|_)(token|password|secret|api_key|private_key|license|approval_password|auth_password|build_key|key_value|secret_key|signing_key|secret_access_key)$|^webhook$/i;
/** What a credential inside a URL is replaced with (the service's own mask for a mirror URL's password). */
export const URL_MASK = '*****';
/** `{name}` (or its escaped form): a URL variable's name, filled in by the service, not a value. */
const isPlaceholder = (value: string): boolean => /^(\{|%7B)[^{}]*(\}|%7D)$/i.test(value);

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Masks user:password in a URL and the values of credential-bearing query parameters (`{name}` placeholders of URL
 * variables stay). The rest of the URL is kept as written. Returns non-URLs unchanged.
 */
export function redactUrl(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || !URL.canParse(value)) return value;
  const url = new URL(value);
  let shown = value;
  if ((url.username && !isPlaceholder(url.username)) || (url.password && !isPlaceholder(url.password))) {
    url.username = url.username ? URL_MASK : '';
    url.password = url.password ? URL_MASK : '';
    shown = url.toString();
  }
  return shown.replace(/([?&])([^=&#]+)=([^&#]*)/g, (whole, lead: string, name: string, secret: string) =>
    SECRET_QUERY.test(name) && secret !== '' && !isPlaceholder(secret) ? `${lead}${name}=${URL_MASK}` : whole);
}

/** Every URL in a text with its user:password and secret query parameters masked (redactUrl), the rest as it is. */
export function redactUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/gi, (url) => redactUrl(url));
}

/** Whether a record field of this name holds a secret (a token, password, key, secret or a chat webhook URL). */
export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key);

/** Lists of {key, value} whose values the service never returns (a webhook's custom headers and URL variables). */
const WRITE_ONLY_PAIRS = new Set(['custom_headers', 'url_variables']);

/**
 * Deep copy of a JSON-like body with secret fields replaced and credentials in URLs masked. `extra` names further
 * fields to replace (a request whose `value` is write-only).
 */
export function redactBody(value: unknown, key = '', extra: readonly string[] = []): unknown {
  if (typeof value === 'string') return key && SECRET_KEY.test(key) ? REDACTED : redactUrl(value);
  if (Array.isArray(value)) {
    if (WRITE_ONLY_PAIRS.has(key)) return value.map((item) => (item && typeof item === 'object' && 'value' in item ? { ...item, value: REDACTED } : item));
    return value.map((item) => redactBody(item, key, extra));
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = (SECRET_KEY.test(k) || extra.includes(k)) && v !== null && v !== undefined ? REDACTED : redactBody(v, k, extra);
    return out;
  }
  return value;
}

/**
 * A record as every output shows it (terminal, pipe, file, --jq, exports, plans, tool results): secret fields
 * replaced, credentials inside URLs masked. For records that hold secrets the service may return (a webhook's URL, an
 * integration's properties); a command that hands over a new secret on purpose does not pass it through here.
 */
export const redactRecord = <T>(record: T): T => redactBody(record) as T;

/** The longest string a --dry-run shows whole; a longer one (a file's content, a large value) is shown by its size. */
const SHOWN_WHOLE = 512;

/**
 * A request body as --dry-run shows it: strings longer than SHOWN_WHOLE bytes stand as their size ("<4,194,304 bytes,
 * base64>" for content sent as base64: the size of the file), the rest as it is. The request itself is unchanged.
 */
export function abridgeBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(abridgeBody);
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const base64 = record.encoding === 'base64';
  return Object.fromEntries(Object.entries(record).map(([key, item]) => {
    if (typeof item !== 'string' || Buffer.byteLength(item) <= SHOWN_WHOLE) return [key, abridgeBody(item)];
    const size = (key === 'content' && base64 ? Buffer.from(item, 'base64') : Buffer.from(item)).length.toLocaleString('en-US');
    return [key, `<${size} bytes${key === 'content' && base64 ? ', base64' : ''}>`];
  }));
}
