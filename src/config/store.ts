import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { fileProblem, WriteError } from '../write.js';
import { withLock } from './lock.js';
import { configFile } from './paths.js';

export type TokenType = 'private' | 'job' | 'oauth';

export interface Profile {
  url?: string;
  token?: string;
  token_command?: string;
  /** The keyring entry (account of the service "forgectl") holding the token, instead of `token`. */
  token_keyring?: string;
  token_type?: TokenType;
  ca_file?: string;
  insecure?: boolean;
  allow_http?: boolean;
  timeout?: number;
  retries?: number;
  output?: string;
  default_group?: string;
  default_project?: string;
}

export interface ConfigData {
  current?: string;
  profiles: Record<string, Profile>;
}

/** Keys a user may set with `profile set`, with how their value is parsed. */
export const PROFILE_KEYS: Record<keyof Profile, 'string' | 'boolean' | 'number' | 'secret' | 'reference'> = {
  url: 'string',
  token: 'secret',
  token_command: 'string',
  token_keyring: 'reference',
  token_type: 'string',
  ca_file: 'string',
  insecure: 'boolean',
  allow_http: 'boolean',
  timeout: 'number',
  retries: 'number',
  output: 'string',
  default_group: 'string',
  default_project: 'string',
};

/** The keys `profile set` and `profile unset` take: not the token, nor where forgectl keeps it (auth login does). */
export const SETTABLE_PROFILE_KEYS = Object.entries(PROFILE_KEYS).filter(([, kind]) => kind !== 'secret' && kind !== 'reference').map(([key]) => key);

/**
 * Reads config.json. Reading is plain fs (start-up matters for every command); writing goes through `conf`
 * (atomic, mode 0600) under a lock, in updateConfig().
 */
/** The config file exists but this user cannot read it (a container run as another user than its HOME's owner). */
export class UnreadableConfig extends ConfigError {}

export function readConfig(dir: string): ConfigData {
  const file = configFile(dir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Nothing there: no file, or a path through a file (where writing it says so).
    if (code === 'ENOENT' || code === 'ENOTDIR') return { profiles: {} };
    throw new UnreadableConfig(`cannot read config ${file}: ${fileProblem(error)}`, 'make it readable to this user, or set FORGECTL_CONFIG_DIR to a folder of its own');
  }
  let data: ConfigData;
  try {
    const parsed = JSON.parse(text) as Partial<ConfigData>;
    data = { ...parsed, profiles: parsed.profiles ?? {} };
  } catch {
    throw new ConfigError(`config ${file} is not valid JSON`, `fix or remove it, then run: forgectl auth login`);
  }
  assertSafePermissions(file, data);
  return data;
}

function holdsSecret(data: ConfigData): boolean {
  return Object.values(data.profiles).some((profile) => Boolean(profile.token));
}

function assertSafePermissions(file: string, data: ConfigData): void {
  if (process.platform === 'win32' || !holdsSecret(data)) return;
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) {
    throw new ConfigError(
      `config ${file} holds a token but is readable by others (mode ${mode.toString(8).padStart(4, '0')})`,
      `run: chmod 600 ${file}`,
    );
  }
}

/**
 * conf writes through `atomically`, whose `when-exit` hooks SIGINT, SIGTERM and a dozen other signals when it is
 * loaded: it removes its temporary files and then kills the process with the same signal, which would cut short
 * forgectl's own handling of a signal (a rotation saying what is saved and what waits in its recovery file). Its hooks
 * on signals are removed once it is loaded; its hook on exit, which removes the temporary files, stays.
 */
async function loadConf(): Promise<typeof import('conf').default> {
  const signals = Object.keys(process.getBuiltinModule('node:os').constants.signals) as NodeJS.Signals[];
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: Conf } = await import('conf');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener as () => void);
  }
  return Conf;
}

/** Read-modify-write of config.json under a lock: atomic rename, mode 0600, folder 0700. */
export async function updateConfig<T>(dir: string, mutate: (data: ConfigData) => T): Promise<T> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  } catch (error) {
    throw new WriteError(dir, error, 'set FORGECTL_CONFIG_DIR to a folder this user can write (a read-only or foreign HOME)');
  }
  return withLock(join(dir, 'config.lock'), 10_000, async () => {
    const current = readConfig(dir);
    const result = mutate(current);
    const Conf = await loadConf();
    const store = new Conf<Record<string, unknown>>({
      cwd: dir,
      configName: 'config',
      configFileMode: 0o600,
      projectName: 'forgectl',
    });
    store.store = current as unknown as Record<string, unknown>;
    chmodSync(configFile(dir), 0o600);
    return result;
  });
}
