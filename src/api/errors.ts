/** Turns every error body shape of api-facts §4 into one line of text. */
export function errorMessageFromBody(body: unknown, status: number): string {
  const text = describe(body);
  return text || defaultStatusText(status);
}

function describe(body: unknown): string {
  if (body === null || body === undefined) return '';
  if (typeof body === 'string') return body.trim().split('\n')[0].slice(0, 500);
  if (Array.isArray(body)) return body.map(describe).filter(Boolean).join('; ');
  if (typeof body !== 'object') return String(body);
  const record = body as Record<string, unknown>;
  if ('message' in record) {
    const base = describeMessage(record.message);
    return record.error_code ? `${base} (${String(record.error_code)})` : base;
  }
  // GraphQL: {"errors":[{"message":"Invalid token"}]}
  if (Array.isArray(record.errors)) return record.errors.map((error) => (error && typeof error === 'object' ? describe((error as Record<string, unknown>).message) : describe(error))).filter(Boolean).join('; ');
  if (typeof record.error === 'string') {
    return typeof record.error_description === 'string' ? record.error_description : record.error;
  }
  return JSON.stringify(body).slice(0, 500);
}

function describeMessage(message: unknown, prefix = ''): string {
  if (typeof message === 'string') return prefix ? `${prefix} ${message}` : message;
  if (Array.isArray(message)) return message.map((item) => describeMessage(item, prefix)).join('; ');
  if (message && typeof message === 'object') {
    const record = message as Record<string, unknown>;
    if (typeof record.error === 'string' && Object.keys(record).every((k) => k === 'error' || !isFieldErrors(record[k]))) {
      return record.error;
    }
    return Object.entries(record)
      .map(([field, value]) => describeMessage(value, prefix ? `${prefix}.${field}` : field))
      .join('; ');
  }
  return String(message);
}

function isFieldErrors(value: unknown): boolean {
  return Array.isArray(value) || (value !== null && typeof value === 'object');
}

function defaultStatusText(status: number): string {
  const texts: Record<number, string> = {
    400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found',
    405: '405 Method Not Allowed', 409: '409 Conflict', 412: '412 Precondition Failed', 422: '422 Unprocessable Entity',
    429: '429 Too Many Requests', 500: '500 Internal Server Error', 502: '502 Bad Gateway', 503: '503 Service Unavailable',
    504: '504 Gateway Timeout',
  };
  return texts[status] ?? `HTTP ${status}`;
}

/**
 * Paths of the API only administrators of the instance may use (its settings, plan limits, licenses, instance-wide
 * lists of runners, deploy keys and tokens, audit events, system hooks, feature flags, keys by fingerprint, storage
 * moves, instance CI/CD variables, the instance's service accounts, a user's memberships): a 403 there has one
 * reason the service does not say.
 */
const ADMIN_PATHS = /^\/(admin\/|application\/|licenses?(\/|$)|runners\/all$|deploy_keys$|deploy_tokens$|audit_events(\/|$)|hooks(\/|$)|features(\/|$)|keys(\/|$)|sidekiq\/|(project|snippet|group)_repository_storage_moves|service_accounts(\/|$)|users\/\d+\/memberships$)/;

/** Whether a path (below the API base) is one only administrators of the instance may use. */
export const isAdminPath = (path: string): boolean => ADMIN_PATHS.test(path);

/** The hint of a 403 on such a path, true as long as the token is not an administrator's (the CLI checks: cli/refusal.ts). */
export const NOT_ADMIN_HINT = 'this is for administrators of the instance, and the token in use is not one';

/** The hint of a 401 that says nothing more than that the token was refused. */
export const TOKEN_REFUSED_HINT = 'the token is missing, expired or revoked; run: forgectl auth login';

/** A hint for the line after the error, where one helps; `path` is the request's, below the API base. */
export function hintForStatus(status: number, body: unknown, path?: string): string | undefined {
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (status === 401) return TOKEN_REFUSED_HINT;
  if (status === 403 && record.error === 'insufficient_scope') {
    return `the token lacks the scope needed${record.scope ? ` (${String(record.scope)})` : ''}; create one with more scopes`;
  }
  if (status === 403 && path !== undefined && isAdminPath(path)) return NOT_ADMIN_HINT;
  if (status === 429) return 'rate limited by the server; wait and try again, or raise --retries';
  return undefined;
}
