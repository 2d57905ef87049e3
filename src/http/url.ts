/** URL helpers that must not load anything heavy: the config layer and the HTTP client both use them. */

/**
 * An absolute URL split into origin and path (with query) without normalising the path: a WHATWG URL turns a
 * `%2E%2E` segment into `..` and removes it with the segment before, so `/projects/%2E%2E/badges` would become
 * `/badges`. Path parameters are encoded on purpose; the path goes out exactly as built.
 */
export function splitUrl(url: string): { origin: string; path: string; host: string; hostname: string; protocol: string } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^#]*)/i.exec(url);
  if (!match) throw new TypeError(`not an absolute URL: ${url}`);
  const origin = originOf(match[1]);
  const rest = match[2];
  return { origin: origin.origin, host: origin.host, hostname: origin.hostname, protocol: origin.protocol, path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** The origins parsed so far (a run talks to one or two): a list's every page would otherwise parse its URL thrice. */
const origins = new Map<string, { origin: string; host: string; hostname: string; protocol: string }>();

function originOf(text: string): { origin: string; host: string; hostname: string; protocol: string } {
  let origin = origins.get(text);
  if (!origin) {
    const url = new URL(text);
    origin = { origin: url.origin, host: url.host, hostname: url.hostname, protocol: url.protocol };
    if (origins.size >= 64) origins.clear();
    origins.set(text, origin);
  }
  return origin;
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1: reached directly, never through a proxy. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The same origin: scheme, host and port, compared as a browser does (default ports and case ignored). */
export function sameOrigin(a: string, b: string): boolean {
  return splitUrl(a).origin === splitUrl(b).origin;
}
