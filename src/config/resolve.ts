import { closestName, parseBoolean, parseChoice, parseInteger } from '../parse.js';
import { ConfigError, UsageError } from '../errors.js';
import { isLoopbackHost } from '../http/url.js';
import { FORMATS } from '../output/formats.js';

export { isLoopbackHost };
import { storedToken, type KeyringReader } from './keyring.js';
import type { Env } from './paths.js';
import { PROFILE_KEYS, SETTABLE_PROFILE_KEYS, type ConfigData, type Profile, type TokenType } from './store.js';

/** Everything needed to talk to one instance, after flags → environment → profile → CI job were consulted. */
export interface Connection {
  profileName?: string;
  /** API base, always ending in /api/v4. */
  baseUrl: string;
  /** Instance root (for WEB routes such as alert intake). */
  rootUrl: string;
  token: string;
  tokenType: TokenType;
  /** Where the token came from; `profile` is the config file, `keyring` the OS keyring a profile refers to. */
  tokenSource: 'environment' | 'profile' | 'keyring' | 'token_command' | 'ci_job';
  caFile?: string;
  insecure: boolean;
  timeoutMs: number;
  retries: number;
  profile?: Profile;
  /** Something to say once on stderr about how the connection was chosen. */
  notice?: string;
}

export interface ConnectionFlags {
  profile?: string;
  server?: string;
  caFile?: string;
  insecure?: boolean;
  timeout?: number;
  retries?: number;
}

/** Which profile is selected: -p, FORGECTL_PROFILE, then `current`. Undefined when none is. */
export function selectedProfileName(flags: ConnectionFlags, env: Env, config: ConfigData): string | undefined {
  return flags.profile ?? (env.FORGECTL_PROFILE || undefined) ?? config.current;
}

export function selectProfile(flags: ConnectionFlags, env: Env, config: ConfigData): { name?: string; profile?: Profile } {
  const name = selectedProfileName(flags, env, config);
  if (name === undefined) return {};
  const profile = config.profiles[name];
  const explicit = flags.profile ?? env.FORGECTL_PROFILE;
  if (!profile && explicit) {
    throw new ConfigError(`no profile named "${name}"`, unknownProfileHint(name, Object.keys(config.profiles)));
  }
  return { name, profile: profile && checkedProfile(name, profile) };
}

/** How a profile key's value is kept; an unknown key is exit 2, naming the nearest of the keys a user sets. */
export function profileKeyKind(key: string): (typeof PROFILE_KEYS)[keyof Profile] {
  const kind = PROFILE_KEYS[key as keyof Profile];
  if (kind) return kind;
  const keys = `keys: ${SETTABLE_PROFILE_KEYS.join(', ')}`;
  const guess = closestName(key, SETTABLE_PROFILE_KEYS);
  throw new UsageError(`unknown profile key "${key}"`, guess ? `did you mean ${guess}? (${keys})` : keys);
}

/** Parses a profile value by its key; tokens are refused here because argv is visible to other users. */
export function parseProfileValue(key: string, value: string): unknown {
  const kind = profileKeyKind(key);
  if (kind === 'secret') throw new UsageError('a token is never accepted as an argument', 'use: forgectl auth login --token-stdin');
  if (kind === 'reference') throw new UsageError(`${key} is managed by forgectl`, 'move a token with: forgectl auth migrate --to keyring|file');
  return profileValueParser(key)(value);
}

/** The parser of a profile key's value; one that takes one of a list names them (shell completion offers them). */
export function profileValueParser(key: string): (value: string) => unknown {
  const kind = PROFILE_KEYS[key as keyof Profile];
  if (kind === 'boolean') return parseBoolean(key);
  if (kind === 'number') return parseInteger(key, key === 'retries' ? 0 : 1, key === 'retries' ? 10 : 3600);
  if (key === 'url') return (value) => normalizeBaseUrl(value).rootUrl;
  if (key === 'token_type') return parseChoice(key, ['private', 'job', 'oauth']);
  if (key === 'output') return parseChoice(key, FORMATS);
  return (value) => value;
}

/**
 * A profile from the config file with each value checked as `profile set` checks it: a value edited by hand into
 * something unusable (a timeout of "abc", a URL without its scheme) is a configuration error (exit 3) naming the
 * profile and the key, not a confusing failure further on.
 */
function checkedProfile(name: string, profile: Profile): Profile {
  const checked: Record<string, unknown> = { ...profile };
  for (const [key, value] of Object.entries(profile)) {
    const kind = PROFILE_KEYS[key as keyof Profile];
    if (!kind || kind === 'secret' || kind === 'reference' || value === undefined || value === null) continue;
    try {
      checked[key] = parseProfileValue(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw new ConfigError(`profile "${name}" in the config file: ${error.message}`, profileFixHint(name, key));
    }
  }
  return checked as Profile;
}

/** How to fix a key of a profile (a bad `output` is read before any command runs, so -o goes around it). */
export function profileFixHint(name: string, key: string): string {
  return `fix it with: forgectl ${key === 'output' ? '-o table ' : ''}-p ${name} profile set ${key} VALUE`;
}

export function normalizeBaseUrl(raw: string): { baseUrl: string; rootUrl: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid URL: ${raw}`, 'give the instance URL, for example https://git.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`unsupported URL scheme: ${url.protocol}`);
  const path = url.pathname.replace(/\/+$/, '');
  const rootPath = path.endsWith('/api/v4') ? path.slice(0, -'/api/v4'.length) : path;
  const root = `${url.protocol}//${url.host}${rootPath}`;
  return { baseUrl: `${root}/api/v4`, rootUrl: root };
}

/**
 * The profile whose token may go to an explicitly given instance (--server, FORGECTL_URL): the selected profile when
 * its URL is that instance, else the profile whose URL is (a token is sent only to its own instance, as `gh` keeps
 * credentials per host). Undefined when no profile is for that instance.
 */
function profileForUrl(baseUrl: string, selected: { name?: string; profile?: Profile }, explicit: boolean, config: ConfigData, env: Env): { name?: string; profile?: Profile } {
  const isFor = (profile: Profile | undefined) => {
    if (!profile?.url) return false;
    try {
      return normalizeBaseUrl(profile.url).baseUrl === baseUrl;
    } catch {
      return false;
    }
  };
  if (isFor(selected.profile)) return selected;
  if (explicit && !env.FORGECTL_TOKEN) {
    throw new ConfigError(
      `profile "${selected.name}" is for ${selected.profile?.url ?? 'no URL'}, not ${baseUrl.replace(/\/api\/v4$/, '')}; its token is sent only to its own instance`,
      'drop --server / FORGECTL_URL to use the profile, or set FORGECTL_TOKEN for the other instance',
    );
  }
  if (explicit) return {};
  const match = Object.entries(config.profiles).find(([, profile]) => isFor(profile));
  return match ? { name: match[0], profile: checkedProfile(match[0], match[1]) } : {};
}

/**
 * One name per instance however its URL is written, for state kept per instance (rotation locks, recovery files):
 * `http://127.0.0.1:8080`, `http://localhost:8080/` and `http://localhost:8080/api/v4` are one instance. Loopback
 * names are one host, ports 80 and 443 are the default of either scheme, and `/api/v4` and trailing slashes go.
 * Two URLs of one instance must never get two names (two runs could then rotate one token at once); two instances
 * sharing a name only makes their rotations wait for each other.
 */
export function instanceIdentity(url: string): string {
  const root = new URL(normalizeBaseUrl(url).rootUrl);
  const host = isLoopbackHost(root.hostname) ? 'loopback' : root.hostname;
  const port = root.port && root.port !== '80' && root.port !== '443' ? `:${root.port}` : '';
  return `${host}${port}${root.pathname.replace(/\/+$/, '')}`;
}

/**
 * The environment alone says where to go and with which token (FORGECTL_TOKEN with --server or FORGECTL_URL, or a CI
 * job's URL and job token), and no profile is named: the config file has nothing this run needs.
 */
export function environmentAlone(flags: ConnectionFlags, env: Env): boolean {
  if (flags.profile !== undefined || env.FORGECTL_PROFILE) return false;
  if (env.FORGECTL_TOKEN?.trim()) return Boolean(flags.server ?? env.FORGECTL_URL ?? env.CI_API_V4_URL ?? env.CI_SERVER_URL);
  return Boolean(env.CI_JOB_TOKEN && (env.CI_API_V4_URL || env.CI_SERVER_URL) && !flags.server && !env.FORGECTL_URL);
}

/** Where requests go, without the token: the instance, the profile that is for it, and the transport settings. */
export type Target = Omit<Connection, 'token' | 'tokenType' | 'tokenSource' | 'notice'>;

/** A target and what choosing its token needs. */
interface Selection extends Target {
  /** --server / FORGECTL_URL was given. */
  explicitUrl: boolean;
  /** The API base of the CI job's own instance, inside a CI job. */
  ciBase?: string;
  /** How the profile was named when -p or FORGECTL_PROFILE named it (and it is the one in use). */
  namedBy?: string;
}

/**
 * The instance and profile in use (flags → environment → profile → CI job), without reading the token: `doctor`
 * probes the network of a profile whose token cannot be read (a keyring outside its session).
 */
export function resolveTarget(flags: ConnectionFlags, env: Env, config: ConfigData): Selection {
  const selected = selectProfile(flags, env, config);
  const ciUrl = env.CI_API_V4_URL || env.CI_SERVER_URL;
  const explicitUrl = flags.server ?? (env.FORGECTL_URL || undefined);
  const rawUrl = explicitUrl ?? selected.profile?.url ?? ciUrl;
  if (!rawUrl) {
    const names = Object.keys(config.profiles);
    if (!selected.name && names.length) {
      throw new ConfigError('no profile is current', `pick one: forgectl profile use ${names.length === 1 ? names[0] : `NAME (${names.join(', ')})`}, or pass -p NAME`);
    }
    throw new ConfigError('no instance configured', env.CI ? 'set FORGECTL_URL and FORGECTL_TOKEN (a masked CI/CD variable)' : 'run: forgectl auth login   (or set FORGECTL_URL and FORGECTL_TOKEN)');
  }
  const { baseUrl, rootUrl } = baseUrlOf(rawUrl, flags.server === undefined && env.FORGECTL_URL ? 'FORGECTL_URL' : undefined);
  const explicitProfile = Boolean(flags.profile ?? env.FORGECTL_PROFILE);
  const { name, profile } = explicitUrl ? profileForUrl(baseUrl, selected, explicitProfile && selected.profile !== undefined, config, env) : selected;
  const timeoutSeconds = flags.timeout ?? profile?.timeout ?? 30;
  return {
    profileName: name,
    baseUrl,
    rootUrl,
    caFile: flags.caFile ?? profile?.ca_file,
    insecure: Boolean(flags.insecure ?? profile?.insecure),
    timeoutMs: timeoutSeconds * 1000,
    retries: flags.retries ?? profile?.retries ?? 3,
    profile,
    explicitUrl: explicitUrl !== undefined,
    // A CI job token belongs to the job's own instance.
    ciBase: ciUrl ? normalizeBaseUrl(ciUrl).baseUrl : undefined,
    namedBy: explicitProfile && profile && name === selected.name ? (flags.profile !== undefined ? `-p ${name}` : `FORGECTL_PROFILE=${name}`) : undefined,
  };
}

/** In a CI job the token comes from a variable, never from `auth login`. */
const CI_TOKEN_HINT = 'set FORGECTL_TOKEN (a masked CI/CD variable)';

/** An instance URL; one from the environment that is not a URL is a configuration error (exit 3) naming the variable. */
function baseUrlOf(raw: string, variable: string | undefined): { baseUrl: string; rootUrl: string } {
  try {
    return normalizeBaseUrl(raw);
  } catch (error) {
    if (variable && error instanceof UsageError) throw new ConfigError(`${variable}: ${error.message}`, error.hint);
    throw error;
  }
}

/**
 * Where the token of a selection comes from, first hit wins; undefined when there is none. FORGECTL_TOKEN comes
 * before the profile's, except for a profile named explicitly (-p, FORGECTL_PROFILE) that has a token of its own: a
 * command line that names the profile means that profile's credentials.
 */
function tokenSourceOf(selection: Selection, env: Env): Connection['tokenSource'] | undefined {
  const { profile } = selection;
  const own = profile?.token ? 'profile' : profile?.token_keyring ? 'keyring' : profile?.token_command ? 'token_command' : undefined;
  if (env.FORGECTL_TOKEN && !(selection.namedBy && own)) return 'environment';
  if (own) return own;
  if (env.CI_JOB_TOKEN && selection.baseUrl === selection.ciBase) return 'ci_job';
  return undefined;
}

/**
 * The keyring entry a run's connection would read its token from, if any: read ahead of the command (asynchronously,
 * see KeyringReads), so that a keyring that does not answer never holds up a signal. Undefined when the token comes
 * from elsewhere, or when the connection cannot be resolved at all (the command then says why, if it needs one).
 */
export function keyringAccountInUse(flags: ConnectionFlags, env: Env, config: ConfigData): string | undefined {
  try {
    const selection = resolveTarget(flags, env, config);
    return tokenSourceOf(selection, env) === 'keyring' ? selection.profile?.token_keyring : undefined;
  } catch {
    return undefined;
  }
}

/** `read` reads a keyring entry (tokens read ahead by the run; by default the keyring is asked there and then). */
export function resolveConnection(flags: ConnectionFlags, env: Env, config: ConfigData, read?: KeyringReader): Connection {
  const selection = resolveTarget(flags, env, config);
  const { explicitUrl, ciBase: _ciBase, namedBy, ...target } = selection;
  const { profileName: name, profile, baseUrl, rootUrl } = target;
  const tokenSource = tokenSourceOf(selection, env) ?? 'profile';
  if (namedBy && env.FORGECTL_TOKEN && tokenSource === 'environment') {
    throw new ConfigError(
      `${namedBy} names profile "${name}", which has no token; FORGECTL_TOKEN is set too, and is used only when no profile is named`,
      `log in to the profile (forgectl -p ${name} auth login), or leave out ${namedBy.startsWith('-p') ? '-p' : 'FORGECTL_PROFILE'} to use FORGECTL_TOKEN`,
    );
  }
  // Said once per run: FORGECTL_TOKEN is set in the shell, and a profile named on purpose wins over it.
  const notice = namedBy && env.FORGECTL_TOKEN ? `FORGECTL_TOKEN is set, but ${namedBy} names a profile: using the token of profile "${name}"` : undefined;
  let token: string | undefined;
  let tokenType: TokenType = profile?.token_type ?? 'private';
  if (tokenSource === 'environment') {
    token = env.FORGECTL_TOKEN;
    tokenType = parseTokenType(env.FORGECTL_TOKEN_TYPE) ?? tokenType;
  } else if (tokenSource === 'profile') {
    token = profile?.token;
  } else if (tokenSource === 'keyring') {
    token = storedToken(name, profile, read);
  } else if (tokenSource === 'token_command') {
    token = runTokenCommand(profile!.token_command!, env);
  } else {
    token = env.CI_JOB_TOKEN;
    tokenType = 'job';
  }
  token = token === undefined ? undefined : headerSafeToken(token, tokenOrigin(tokenSource, name));
  if (!token && explicitUrl && !profile) {
    throw new ConfigError(
      `no token for ${rootUrl}: no profile is for this instance, and a profile's token is sent only to its own instance`,
      tokenVariableSlip(env) ?? (env.CI ? CI_TOKEN_HINT : `set FORGECTL_TOKEN, or log in to it: forgectl auth login --url ${rootUrl}`),
    );
  }
  if (!token) {
    const where = name ? `profile "${name}" has no token` : 'no token configured';
    throw new ConfigError(where, tokenVariableSlip(env) ?? (env.CI && !name ? CI_TOKEN_HINT : `run: forgectl auth login${name ? ` --profile ${name}` : ''}   (or set FORGECTL_TOKEN)`));
  }

  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !profile?.allow_http) {
    throw new ConfigError(
      `refusing to send a token over plain http to ${url.host}`,
      'use https, or set "allow_http": true in the profile (forgectl profile set allow_http true)',
    );
  }
  return { ...target, token, tokenType, tokenSource, ...(notice ? { notice } : {}) };
}

/** Where a connection's token came from, in words: FORGECTL_TOKEN, the token of profile "bot", … */
export function tokenOrigin(source: Connection['tokenSource'], profile: string | undefined): string {
  if (source === 'environment') return 'FORGECTL_TOKEN';
  if (source === 'ci_job') return 'CI_JOB_TOKEN';
  return source === 'token_command' ? `the output of the token_command of profile "${profile}"` : `the token of profile "${profile}"`;
}

/**
 * A token as it goes into a header. Whitespace around it goes (a CRLF file read with $(cat …), a pasted line); a
 * character no token holds is refused before anything is sent: as a malformed header it would fail like a network
 * error, retried and then exit 8. The message names the character and its place, never the token.
 */
function headerSafeToken(token: string, origin: string): string {
  const trimmed = token.trim();
  const bad = /[^\x21-\x7e]/.exec(trimmed);
  if (!bad) return trimmed;
  const code = bad[0].codePointAt(0)!;
  const what = code < 0x20 || code === 0x7f ? 'a control character' : code === 0x20 ? 'a space' : 'a character outside ASCII';
  throw new ConfigError(
    `${origin} holds ${what} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at position ${bad.index + 1}, which no token has; nothing was sent`,
    'set it again to the token alone, as the service showed it',
  );
}

/** Tokens set where forgectl does not look, or set empty: the usual slips in a CI job's variables. */
function tokenVariableSlip(env: Env): string | undefined {
  if (env.FORGECTL_TOKEN !== undefined && !env.FORGECTL_TOKEN.trim()) {
    return 'FORGECTL_TOKEN is set but empty: in a CI job, a protected variable reaches only protected branches and tags';
  }
  const other = ['GITLAB_TOKEN', 'GITLAB_PRIVATE_TOKEN', 'GITLAB_ACCESS_TOKEN'].find((variable) => env[variable]);
  return other && `${other} is set, but forgectl reads its token from FORGECTL_TOKEN: export FORGECTL_TOKEN="$${other}"`;
}

function parseTokenType(value: string | undefined): TokenType | undefined {
  return value === 'private' || value === 'job' || value === 'oauth' ? value : undefined;
}

/**
 * Runs a command through the shell for a secret (a token_command, a desired-state `{command: …}`): its trimmed
 * stdout. Throws an Error whose message says why without repeating what the command printed.
 */
export function secretFromCommand(command: string, env: Env): string {
  // Required here, not at the top: child_process costs every other run start-up time.
  const { execFileSync } = process.getBuiltinModule('node:child_process');
  let out: string;
  try {
    out = execFileSync('/bin/sh', ['-c', command], { env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const status = (error as { status?: number | null; signal?: string | null }).status;
    const signal = (error as { signal?: string | null }).signal;
    throw new Error(signal ? `it was stopped by ${signal}` : status !== undefined && status !== null ? `it exited with status ${status}` : (error as Error).message.split('\n')[0]);
  }
  const secret = out.trim();
  if (!secret) throw new Error('it printed nothing');
  return secret;
}

/** Runs a profile's token_command through the shell; its trimmed stdout is the token. */
function runTokenCommand(command: string, env: Env): string {
  try {
    return secretFromCommand(command, env);
  } catch (error) {
    throw new ConfigError(`token_command failed: ${(error as Error).message}`, 'check the command with: forgectl profile show');
  }
}

/** A mistyped profile name is more likely than a new one: the closest existing name, else the existing ones. */
function unknownProfileHint(name: string, existing: string[]): string {
  const create = `forgectl auth login --profile ${name} creates it`;
  if (!existing.length) return `no profiles yet: ${create}`;
  const guess = closestName(name, existing);
  return guess ? `did you mean ${guess}? (${create})` : `profiles: ${existing.join(', ')} (${create})`;
}
