import { ConfigError } from '../errors.js';
import type { Env } from './paths.js';
import type { Profile } from './store.js';

/**
 * Tokens in the OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) through the
 * native binding `@napi-rs/keyring`, loaded on first use only: a run whose profiles keep their tokens in the config
 * file never loads it. Entries are of the service `forgectl`; the profile names its entry's account in
 * `token_keyring`, so the config file holds a reference and no secret.
 */
export const KEYRING_SERVICE = 'forgectl';

interface KeyringEntry {
  setPassword(password: string): void;
  getPassword(): string | null | undefined;
  deletePassword(): boolean;
}
interface Binding {
  Entry: new (service: string, account: string, options?: { linux?: { store?: 'secret-service' } }) => KeyringEntry;
}

/** The keyring cannot be used: the native binding is missing or broken (`binding`), or no keyring service answered. */
export class KeyringUnavailable extends Error {
  constructor(
    message: string,
    readonly binding: boolean,
  ) {
    super(message);
    this.name = 'KeyringUnavailable';
  }
}

let loaded: Binding | Error | undefined;

/**
 * A native module cannot be bundled: the bundle (CommonJS) requires it from the package's own dependencies, where
 * the build leaves it external; the sources, run as ES modules by the tests, require it through createRequire.
 */
function requireBinding(): unknown {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@napi-rs/keyring');
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error; // `require` is not defined in an ES module
    return process.getBuiltinModule('node:module').createRequire(import.meta.url)('@napi-rs/keyring');
  }
}

function binding(): Binding {
  if (loaded === undefined) {
    try {
      const module = requireBinding() as Partial<Binding>;
      loaded = typeof module?.Entry === 'function' ? (module as Binding) : new Error('it has no Entry class');
    } catch (error) {
      loaded = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (loaded instanceof Error) throw new KeyringUnavailable(`the keyring module @napi-rs/keyring could not be loaded: ${firstLine(loaded.message)}`, true);
  return loaded;
}

const firstLine = (text: string): string => text.split('\n')[0].trim();

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // The binding nests the D-Bus error in its message ("Platform failure: DBus error: …"): the innermost part says most.
  return firstLine(message).replace(/^(Platform failure|Couldn't access platform storage): /, '');
}

/** One entry of the keyring; errors become KeyringUnavailable with the keyring's own reason. */
function entry(account: string): KeyringEntry {
  const { Entry } = binding();
  try {
    // On Linux only the Secret Service persists: the binding's fallback (the kernel keyring) forgets at log-out.
    return new Entry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } });
  } catch (error) {
    throw new KeyringUnavailable(`no keyring answered: ${reason(error)}`, false);
  }
}

function attempt<T>(what: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof KeyringUnavailable) throw error;
    throw new KeyringUnavailable(`the keyring refused to ${what}: ${reason(error)}`, false);
  }
}

export function keyringRead(account: string): string | undefined {
  const item = entry(account);
  return attempt('read the token', () => item.getPassword()) ?? undefined;
}

export function keyringWrite(account: string, token: string): void {
  const item = entry(account);
  attempt('store the token', () => item.setPassword(token));
  // A keyring that takes a write but cannot give it back (a locked or read-only store) is no place for a token.
  if (attempt('read the token back', () => item.getPassword()) !== token) throw new KeyringUnavailable('the keyring did not keep the token', false);
}

/** Removes an entry; false when there was none. */
export function keyringDelete(account: string): boolean {
  const item = entry(account);
  return attempt('remove the token', () => item.deletePassword());
}

/**
 * Whether a keyring can be there to ask, without asking: on Linux and the BSDs the Secret Service is reached over the
 * session bus, so without one (a headless server, cron, ssh without a desktop session) the file is used quietly.
 * Elsewhere (Keychain, Credential Manager) the keyring is part of the login session.
 */
export function sessionKeyringExpected(env: Env): boolean {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  if (!env.XDG_RUNTIME_DIR) return false;
  try {
    return process.getBuiltinModule('node:fs').statSync(`${env.XDG_RUNTIME_DIR}/bus`).isSocket();
  } catch {
    return false;
  }
}

/** CI=true (and the CI variables every CI service sets): tokens go to the file there. */
export function inCi(env: Env): boolean {
  return Boolean(env.CI) && env.CI !== 'false' && env.CI !== '0';
}

export type TokenStorage = 'keyring' | 'file' | 'token_command' | 'none';

/** Where a profile keeps its token. */
export function tokenStorage(profile: Profile | undefined): TokenStorage {
  if (profile?.token) return 'file';
  if (profile?.token_keyring) return 'keyring';
  if (profile?.token_command) return 'token_command';
  return 'none';
}

/** A profile's stored token, from the file or the keyring (exit 3 when its keyring does not answer). */
export function storedToken(name: string | undefined, profile: Profile | undefined): string | undefined {
  if (profile?.token) return profile.token;
  if (!profile?.token_keyring) return undefined;
  const label = name ? `profile "${name}"` : 'the profile';
  let token: string | undefined;
  try {
    token = keyringRead(profile.token_keyring);
  } catch (error) {
    throw new ConfigError(
      `${label} keeps its token in the OS keyring, which cannot be used here: ${(error as Error).message}`,
      `run where the keyring is unlocked (a desktop session), set FORGECTL_TOKEN, or log in again with the token in the config file: forgectl${name ? ` -p ${name}` : ''} auth login --insecure-storage`,
    );
  }
  if (token === undefined) {
    throw new ConfigError(`${label} keeps its token in the OS keyring, but the keyring has no entry "${profile.token_keyring}"`, `log in again: forgectl${name ? ` -p ${name}` : ''} auth login`);
  }
  return token;
}
