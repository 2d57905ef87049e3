/** Building request paths and query strings the way the service expects them (api-facts §6). */

/** A value placed into a path verbatim, slashes kept: job artifact splat paths. */
export class RawSegment {
  constructor(readonly value: string) {}
}
export const splat = (value: string): RawSegment => new RawSegment(value);

/** Encodes one path parameter as a single segment: `acme/api` → `acme%2Fapi`, dots encoded for old instances. */
export function encodeSegment(value: string | number): string {
  return encodeURIComponent(String(value)).replace(/\./g, '%2E');
}

/**
 * Tagged template for API paths: every interpolated value is one encoded segment.
 * p`/projects/${'acme/api'}/badges/${3}` → "/projects/acme%2Fapi/badges/3"
 */
export function p(strings: TemplateStringsArray, ...values: Array<string | number | RawSegment>): string {
  let out = strings[0];
  values.forEach((value, index) => {
    out += value instanceof RawSegment ? value.value.split('/').map(encodeURIComponent).join('/') : encodeSegment(value);
    out += strings[index + 1];
  });
  return out;
}

export type QueryValue = string | number | boolean | null | undefined | QueryValue[] | { [key: string]: QueryValue };
export type Query = Record<string, QueryValue>;

/** Rails-style query string: arrays as `k[]=a&k[]=b`, hashes as `k[a]=1`, undefined skipped. */
export function toQueryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  const add = (key: string, value: QueryValue): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value) add(`${key}[]`, item);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else {
      parts.push(`${encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(value === null ? '' : String(value))}`);
    }
  };
  for (const [key, value] of Object.entries(query)) add(key, value);
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * A route of a resource declaration, `'GET /projects/{project}/badges/{badge_id}'`, with its parameters: the path
 * parameters are expanded (each one encoded segment, as p`` does) and removed; the rest is returned for the query
 * or body. A splat parameter, `{*artifact_path}`, keeps its slashes (each part encoded, as splat() does). A missing
 * path parameter is a programming error.
 */
export function expandRoute(route: string, params: Record<string, unknown> = {}): { method: string; path: string; rest: Record<string, unknown> } {
  const match = /^([A-Z]+) (\/\S*)$/.exec(route);
  if (!match) throw new Error(`not a route: "${route}" (expected "METHOD /path/{param}")`);
  const rest: Record<string, unknown> = { ...params };
  const path = match[2].replace(/\{(\*?)([a-z_]+)\}/g, (_, star: string, name: string) => {
    const value = rest[name];
    if (value === undefined || value === null || value === '') throw new Error(`route ${route}: no value for {${star}${name}}`);
    delete rest[name];
    return star ? String(value).split('/').map(encodeURIComponent).join('/') : encodeSegment(value as string | number);
  });
  for (const [key, value] of Object.entries(rest)) if (value === undefined) delete rest[key];
  return { method: match[1], path, rest };
}

/** Whether a string is a route ("GET /path") rather than a path. */
export const isRoute = (value: string): boolean => /^[A-Z]+ \//.test(value);

/** The path parameters of a route string: `'GET /projects/{project}/badges/{badge_id}'` → 'project' | 'badge_id'. */
export type RouteParamNames<R extends string> = R extends `${string}{${infer P}}${infer Rest}` ? (P extends `*${infer S}` ? S : P) | RouteParamNames<Rest> : never;

/**
 * The parameters of a call of a route: each path parameter, required (a string or number, or a RawSegment-free
 * value), and anything else for the query or body. A route typed only as `string` checks nothing.
 */
export type RouteParams<R extends string> = { [K in RouteParamNames<R>]: string | number } & Record<string, unknown>;
