import { chmodSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inCi, KeyringUnavailable, keyringRead, tokenStorage } from '../../config/keyring.js';
import { lockIsStale } from '../../config/lock.js';
import { configFile, locksDir } from '../../config/paths.js';
import { resolveTarget, selectedProfileName } from '../../config/resolve.js';
import type { ConfigData } from '../../config/store.js';
import { ExitCode } from '../../errors.js';
import { listRecoveries } from '../tokens/rotation.js';
import { plural } from '../../parse.js';
import { checksOf, fail, pass, skip, warn, type DoctorState, type Outcome } from './check.js';

const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

/** Config file 0600 in a 0700 folder; --fix sets both. A group- or world-readable file holding a token fails (exit 3). */
function checkModes(state: DoctorState): Outcome {
  const dir = state.ctx.configDir;
  const file = configFile(dir);
  const fileMode = modeOf(file);
  const dirMode = modeOf(dir);
  if (fileMode === undefined) return pass(`${file} does not exist yet (no profile saved)`);
  if (process.platform === 'win32') return pass(`${file} (modes are not used on Windows)`);
  const wrong: string[] = [];
  const fixes: string[] = [];
  if (fileMode !== 0o600) {
    wrong.push(`${file} is ${octal(fileMode)}`);
    fixes.push(`chmod 600 ${file}`);
  }
  if (dirMode !== undefined && dirMode !== 0o700) {
    wrong.push(`${dir} is ${octal(dirMode)}`);
    fixes.push(`chmod 700 ${dir}`);
  }
  if (!wrong.length) return pass(`${file} is 0600 in a 0700 folder`);
  if (state.fix) {
    chmodSync(file, 0o600);
    if (dirMode !== undefined) chmodSync(dir, 0o700);
    return pass(`fixed: ${fixes.join('; ')} (was: ${wrong.join(', ')})`);
  }
  let holdsToken = false;
  try {
    holdsToken = /"token"\s*:/.test(readFileSync(file, 'utf8'));
  } catch {
    holdsToken = false;
  }
  const fix = `${fixes.join(' && ')}   (or: forgectl doctor --fix)`;
  if (holdsToken && fileMode & 0o077) return fail(`${wrong.join(', ')}, and it holds a token others can read`, fix, ExitCode.config);
  return warn(wrong.join(', '), fix);
}

function checkProfiles(state: DoctorState): Outcome {
  const config = state.ctx.readConfig();
  const names = Object.keys(config.profiles);
  if (!names.length) return pass(`none saved in ${configFile(state.ctx.configDir)}`);
  const list = names.map((name) => `${name} (${tokenStorage(config.profiles[name]).replace('_', ' ')})`).join(', ');
  return pass(`${plural(names.length, 'profile')}: ${list}`);
}

/** Which profile and instance are used, and why: flag, environment, the current profile, CI job detection. */
function checkSelection(state: DoctorState): Outcome {
  const { ctx } = state;
  let config: ConfigData;
  try {
    config = ctx.readConfig();
  } catch (error) {
    // A broken file does not hide an instance named by --server or FORGECTL_URL: the network checks still run for it.
    state.target = instanceWithoutFile(state);
    throw error;
  }
  state.target = resolveTarget(ctx.globals, ctx.env, config);
  const connection = ctx.connection();
  state.connection = connection;
  const named = selectedProfileName(ctx.globals, ctx.env, config);
  let why: string;
  if (connection.tokenSource === 'ci_job') why = 'a CI job was detected (CI_JOB_TOKEN with CI_API_V4_URL or CI_SERVER_URL)';
  else if (!connection.profileName) why = 'no profile: FORGECTL_URL / --server and FORGECTL_TOKEN';
  else if (ctx.globals.profile) why = `-p ${ctx.globals.profile}`;
  else if (ctx.env.FORGECTL_PROFILE) why = `FORGECTL_PROFILE=${ctx.env.FORGECTL_PROFILE}`;
  else if (connection.profileName !== named) why = 'its url is the instance given by --server / FORGECTL_URL';
  else why = 'it is the current profile (forgectl profile use)';
  const who = connection.profileName ? `profile "${connection.profileName}"` : 'no profile';
  const ci = inCi(ctx.env) ? '; CI detected (CI is set)' : '';
  return pass(`${who} for ${connection.rootUrl}: ${why}${ci}`);
}

/** The instance --server, FORGECTL_URL or a CI job names, read without the configuration file. */
function instanceWithoutFile(state: DoctorState): DoctorState['target'] {
  try {
    return resolveTarget(state.ctx.globals, state.ctx.env, { profiles: {} });
  } catch {
    return undefined;
  }
}

/** Where the token in use lives, and that it can be read from there. */
async function checkTokenStorage(state: DoctorState): Promise<Outcome> {
  const connection = state.connection;
  if (!connection) return skip('no connection');
  const profile = connection.profile;
  switch (connection.tokenSource) {
    case 'environment':
      return pass('FORGECTL_TOKEN (environment)');
    case 'ci_job':
      return pass('CI_JOB_TOKEN (CI job)');
    case 'token_command':
      return pass(`token_command of profile "${connection.profileName}"`);
    case 'keyring': {
      try {
        await keyringRead(profile!.token_keyring!);
      } catch (error) {
        if (error instanceof KeyringUnavailable) return fail(error.message, 'unlock the keyring, or: forgectl auth migrate --to file', ExitCode.config);
        throw error;
      }
      return pass(`the OS keyring (entry "${profile!.token_keyring}" of service forgectl)`);
    }
    default: {
      const atDesk = !inCi(state.ctx.env) && (state.ctx.io.stdoutIsTTY || state.ctx.io.stderrIsTTY);
      const hint = atDesk ? `; to keep it in the OS keyring instead: forgectl${connection.profileName ? ` -p ${connection.profileName}` : ''} auth migrate --to keyring` : '';
      return pass(`the config file (${configFile(state.ctx.configDir)}, mode 0600)${hint}`);
    }
  }
}

function checkRecoveries(state: DoctorState): Outcome {
  const pending = listRecoveries(state.ctx.configDir);
  if (!pending.length) return pass('no interrupted rotations');
  const first = pending[0].record;
  return warn(`${plural(pending.length, 'interrupted rotation')} waiting in recovery files (oldest ${first.created_at}, ${first.kind} token ${first.rotated_token_id})`, 'forgectl tokens recover');
}

function checkLocks(state: DoctorState): Outcome {
  const dir = locksDir(state.ctx.configDir);
  const lockFiles = [join(state.ctx.configDir, 'config.lock')];
  try {
    lockFiles.push(...readdirSync(dir).filter((name) => name.endsWith('.lock')).map((name) => join(dir, name)));
  } catch {
    // no locks folder: no rotation ran yet
  }
  const stale = lockFiles.filter((path) => lockIsStale(path));
  if (!stale.length) return pass('no stale locks');
  if (state.fix) {
    for (const path of stale) rmSync(path, { force: true });
    return pass(`fixed: removed ${plural(stale.length, 'stale lock')} (${stale.join(', ')})`);
  }
  return warn(`${plural(stale.length, 'stale lock')} left by runs that are gone: ${stale.join(', ')}`, `forgectl doctor --fix   (or: rm ${stale.join(' ')})`);
}

export const configurationChecks = checksOf('configuration', {
  'file modes': checkModes,
  profiles: checkProfiles,
  'profile in use': checkSelection,
  'token storage': checkTokenStorage,
  'interrupted rotations': checkRecoveries,
  locks: checkLocks,
});
