/** Pull-mirror URLs: what the service accepts, and how credentials inside them are hidden. */

export const MIRROR_SCHEMES = ['http', 'https', 'ssh', 'git'];

/** The URL with its user and password each replaced (a value that is not a URL, or has none, as it is). */
function replaceCredentials(value: string, replacement: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.username && !url.password) return value;
  if (url.username) url.username = replacement;
  if (url.password) url.password = replacement;
  return url.toString();
}

/** The URL with its user and password replaced by *****, as the service presents mirror URLs. */
export const maskUrlCredentials = (value: string): string => replaceCredentials(value, '*****');

/** The URL without its user and password (a desired-state file names them apart, as secret references). */
export const withoutCredentials = (value: string): string => replaceCredentials(value, '');

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

