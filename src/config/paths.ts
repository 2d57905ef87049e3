import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

/** The folder holding config.json, locks and recovery files: FORGECTL_CONFIG_DIR, else the platform's config folder. */
export function configDir(env: Env): string {
  if (env.FORGECTL_CONFIG_DIR) return env.FORGECTL_CONFIG_DIR;
  const home = env.HOME || process.getBuiltinModule('node:os').homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'forgectl');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'forgectl', 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'forgectl');
}

export function configFile(dir: string): string {
  return join(dir, 'config.json');
}

/** Rotation locks, one file per token being rotated. */
export function locksDir(dir: string): string {
  return join(dir, 'locks');
}

/** Recovery files: the new token of a rotation, kept until it is saved where it belongs. */
export function recoveryDir(dir: string): string {
  return join(dir, 'recovery');
}
