import { ConfigError } from '../errors.js';
import type { Env } from './paths.js';
import type { Profile } from './store.js';

/**
 * Tokens in the OS keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) through the
 * native binding `@napi-rs/keyring`. Entries are of the service `forgectl`; the profile names its entry's account in
 * `token_keyring`, so the config file holds a reference and no secret.
 *
 * The binding's calls block the thread that makes them (even its "async" entries connect to the session bus in their
 * constructor), and a session bus that accepts a connection but never answers blocks them for minutes. So every call
 * is made by forgectl run again as a helper process (src/config/keyring-helper.ts) with a deadline: the event loop
 * stays free, SIGINT and SIGTERM end the run as anywhere else, and a keyring that misses the deadline is treated as
 * unavailable (the helper is killed). A run whose profiles keep their tokens in the config file never starts one.
 */
export const KEYRING_SERVICE = 'forgectl';

/** How long one keyring call may take before the keyring counts as unavailable. */
export const KEYRING_DEADLINE_MS = 4000;

/** How long a helper process may take to start (a loaded machine), before the deadline for the keyring starts. */
const HELPER_START_MS = 30_000;

/** The helper's first line, once it has started: the keyring's deadline runs from there. */
export const KEYRING_READY = 'ready\n';

/** After a missed deadline the keyring is not asked again for this long (each call would wait the deadline again). */
const STUCK_FOR_MS = 60_000;

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

export type KeyringOperation = 'read' | 'write' | 'delete';

/** The helper's one line of JSON: the value read (or read back after a write), whether an entry was deleted, or where and why it failed. */
export interface KeyringReply {
  value?: string | null;
  deleted?: boolean;
  stage?: 'load' | 'open' | 'read' | 'write' | 'readback' | 'delete';
  error?: string;
}

/** Set in the environment of a helper process: main() then makes the one keyring call its argv names. */
export const KEYRING_CALL_ENV = 'FORGECTL_INTERNAL_KEYRING_CALL';

const unloadable = (why: string): KeyringUnavailable => new KeyringUnavailable(`the keyring module @napi-rs/keyring could not be loaded: ${firstLine(why)}`, true);

const firstLine = (text: string): string => text.split('\n')[0].trim();

/**
 * The keyring's reason in words: the binding nests the D-Bus error in its message ("Platform failure: DBus error: …"),
 * and the commonest causes are said plainly.
 */
export function keyringReason(raw: string): string {
  const text = firstLine(raw).replace(/^(Platform failure|Couldn't access platform storage): /, '').replace(/^DBus error: /, '');
  if (/autolaunch|set your DBUS_SESSION_BUS_ADDRESS/i.test(text)) return 'no session bus (DBUS_SESSION_BUS_ADDRESS is not set: there is no desktop session here)';
  if (/Failed to connect to socket/i.test(text)) return `no session bus answers at ${process.env.DBUS_SESSION_BUS_ADDRESS ?? 'its address'} (${text.replace(/^.*: /, '')})`;
  if (/Did not receive a reply/i.test(text)) return 'the session bus closed the connection without answering';
  if (/not provided by any \.service files|ServiceUnknown|name has no owner/i.test(text)) return 'no keyring service on the session bus (such as gnome-keyring or KeePassXC)';
  if (/no result found/i.test(text)) return 'no default keyring (the keyring service has no login keyring to keep tokens in; create one with your keyring tool, such as Seahorse)';
  if (/is locked|locked collection/i.test(text)) return 'the keyring is locked (unlock it, for example by logging in to the desktop)';
  return text;
}

const WHAT: Record<NonNullable<KeyringReply['stage']>, string> = {
  load: '',
  open: '',
  read: 'read the token',
  write: 'store the token',
  readback: 'read the token back',
  delete: 'remove the token',
};

/** The helper's answer, or the KeyringUnavailable it amounts to. */
function settle(out: string, code: number | null, signal: NodeJS.Signals | null): KeyringReply {
  let reply: KeyringReply;
  try {
    reply = JSON.parse(out.startsWith(KEYRING_READY) ? out.slice(KEYRING_READY.length) : out) as KeyringReply;
  } catch {
    const how = signal ? `was ended by ${signal}` : `exited ${code ?? '?'} without an answer`;
    throw new KeyringUnavailable(`the keyring helper process ${how}`, false);
  }
  if (!reply.stage) return reply;
  const reason = keyringReason(reply.error ?? 'unknown error');
  if (reply.stage === 'load') throw unloadable(reply.error ?? 'unknown error');
  if (reply.stage === 'open') throw new KeyringUnavailable(`no keyring answered: ${reason}`, false);
  throw new KeyringUnavailable(`the keyring refused to ${WHAT[reply.stage]}: ${reason}`, false);
}

let stuckUntil = 0;

function missedDeadline(): KeyringUnavailable {
  stuckUntil = Date.now() + STUCK_FOR_MS;
  return stuck();
}

const helperNotStarted = (withinMs = HELPER_START_MS): KeyringUnavailable => new KeyringUnavailable(`the keyring helper process did not start within ${withinMs / 1000}s`, false);

const stuck = (): KeyringUnavailable =>
  new KeyringUnavailable(`no keyring answered within ${KEYRING_DEADLINE_MS / 1000}s (the session bus or the keyring service is not responding)`, false);

/**
 * How to run forgectl again as a helper: the single executable is itself; the package's bin is the script this
 * process runs; the sources (tests run them in-process) use the built bin beside them.
 */
function helperCommand(op: KeyringOperation, account: string): { args: string[]; env: NodeJS.ProcessEnv } {
  if (Date.now() < stuckUntil) throw stuck();
  const self = process.getBuiltinModule('node:sea')?.isSea?.()
    ? []
    : [import.meta.url.endsWith('.ts') ? process.getBuiltinModule('node:url').fileURLToPath(new URL('../../bin/forgectl.cjs', import.meta.url)) : process.argv[1]];
  return { args: [...self, op, account], env: { ...process.env, [KEYRING_CALL_ENV]: '1' } };
}

/** One keyring call in a helper process, with the deadline; the helper is killed should this process end first. */
function call(op: KeyringOperation, account: string, secret = ''): Promise<KeyringReply> {
  const { args, env } = helperCommand(op, account);
  const { spawn } = process.getBuiltinModule('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env });
    const killHelper = (): void => void child.kill('SIGKILL');
    process.on('exit', killHelper);
    const giveUp = (error: () => KeyringUnavailable) => (): void => {
      killHelper();
      reject(error());
    };
    let timer = setTimeout(giveUp(() => helperNotStarted()), HELPER_START_MS);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const started = out.startsWith(KEYRING_READY);
      out += chunk;
      if (started || !out.startsWith(KEYRING_READY)) return;
      clearTimeout(timer);
      timer = setTimeout(giveUp(missedDeadline), KEYRING_DEADLINE_MS);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      process.off('exit', killHelper);
      reject(new KeyringUnavailable(`the keyring helper process could not be started: ${error.message}`, false));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('exit', killHelper);
      try {
        resolve(settle(out, code, signal));
      } catch (error) {
        reject(error as Error);
      }
    });
    child.stdin.on('error', () => undefined); // a helper that fails before reading its input
    child.stdin.end(secret);
  });
}

/**
 * The same call made synchronously, for the few places that cannot wait for a promise (a connection resolved without
 * its token read ahead): bounded by the deadline (and as long again for the process to start), but a signal is only acted on once it returns.
 */
function callNow(op: KeyringOperation, account: string): KeyringReply {
  const { args, env } = helperCommand(op, account);
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  // One bound for both: the process's start and the keyring's answer (the deadline, and a grace for the start).
  const result = spawnSync(process.execPath, args, { input: '', stdio: ['pipe', 'pipe', 'inherit'], env, timeout: 2 * KEYRING_DEADLINE_MS, killSignal: 'SIGKILL', encoding: 'utf8' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') throw result.stdout.startsWith(KEYRING_READY) ? missedDeadline() : helperNotStarted(2 * KEYRING_DEADLINE_MS);
  if (result.error) throw new KeyringUnavailable(`the keyring helper process could not be started: ${result.error.message}`, false);
  return settle(result.stdout, result.status, result.signal);
}

export async function keyringRead(account: string): Promise<string | undefined> {
  return (await call('read', account)).value ?? undefined;
}

/** keyringRead without a promise (see callNow): only where a connection is resolved that was not read ahead. */
export function keyringReadNow(account: string): string | undefined {
  return callNow('read', account).value ?? undefined;
}

export async function keyringWrite(account: string, token: string): Promise<void> {
  if ((await call('write', account, token)).value !== token) throw new KeyringUnavailable('the keyring did not keep the token', false);
}

/** Removes an entry; false when there was none. */
export async function keyringDelete(account: string): Promise<boolean> {
  return Boolean((await call('delete', account)).deleted);
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

/** Reads a keyring entry by account: keyringReadNow, or tokens read ahead (KeyringReads). */
export type KeyringReader = (account: string) => string | undefined;

/**
 * Keyring entries read ahead of a run, asynchronously (so that a signal is acted on at once while the keyring is
 * asked), and handed out synchronously when the connection is resolved. An entry not read ahead is read then.
 */
export class KeyringReads {
  private readonly found = new Map<string, { value?: string } | { error: KeyringUnavailable }>();

  async readAhead(account: string): Promise<void> {
    try {
      this.found.set(account, { value: await keyringRead(account) });
    } catch (error) {
      if (!(error instanceof KeyringUnavailable)) throw error;
      this.found.set(account, { error });
    }
  }

  readonly read: KeyringReader = (account) => {
    const found = this.found.get(account);
    if (!found) return keyringReadNow(account);
    if ('error' in found) throw found.error;
    return found.value;
  };
}

/** A profile's stored token, from the file or the keyring (exit 3 when its keyring does not answer). */
export function storedToken(name: string | undefined, profile: Profile | undefined, read: KeyringReader = keyringReadNow): string | undefined {
  if (profile?.token) return profile.token;
  if (!profile?.token_keyring) return undefined;
  let token: string | undefined;
  try {
    token = read(profile.token_keyring);
  } catch (error) {
    throw keyringProfileError(name, error);
  }
  if (token === undefined) throw keyringEntryMissing(name, profile.token_keyring);
  return token;
}

/** storedToken asking the keyring asynchronously. */
export async function loadStoredToken(name: string | undefined, profile: Profile | undefined): Promise<string | undefined> {
  if (profile?.token || !profile?.token_keyring) return storedToken(name, profile);
  let token: string | undefined;
  try {
    token = await keyringRead(profile.token_keyring);
  } catch (error) {
    throw keyringProfileError(name, error);
  }
  if (token === undefined) throw keyringEntryMissing(name, profile.token_keyring);
  return token;
}

function keyringProfileError(name: string | undefined, error: unknown): ConfigError {
  return new ConfigError(
    `${name ? `profile "${name}"` : 'the profile'} keeps its token in the OS keyring, which cannot be used here: ${(error as Error).message}`,
    `run where the keyring is unlocked (a desktop session), set FORGECTL_TOKEN, or log in again with the token in the config file: forgectl${name ? ` -p ${name}` : ''} auth login --insecure-storage`,
  );
}

function keyringEntryMissing(name: string | undefined, account: string): ConfigError {
  return new ConfigError(`${name ? `profile "${name}"` : 'the profile'} keeps its token in the OS keyring, but the keyring has no entry "${account}"`, `log in again: forgectl${name ? ` -p ${name}` : ''} auth login`);
}
