/** Pull-mirror URLs: what the service accepts, and how credentials inside them are hidden. */

export const MIRROR_SCHEMES = ['http', 'https', 'ssh', 'git'];

/** The URL with its user and password replaced by *****, as the service presents mirror URLs. */
export function maskUrlCredentials(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.username && !url.password) return value;
  if (url.username) url.username = '*****';
  if (url.password) url.password = '*****';
  return url.toString();
}

/** Why the service would block this URL, or undefined when it is acceptable. */
export function mirrorUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'URI is invalid';
  }
  if (!MIRROR_SCHEMES.includes(url.protocol.replace(/:$/, ''))) return `Only allowed schemes are ${MIRROR_SCHEMES.join(', ')}`;
  if (!url.hostname) return 'URI is invalid';
  return undefined;
}

/** The URL without its user and password (a desired-state file names them apart, as secret references). */
export function withoutCredentials(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.username && !url.password) return value;
  url.username = '';
  url.password = '';
  return url.toString();
}
