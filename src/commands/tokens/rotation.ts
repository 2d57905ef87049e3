import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { LockFile } from '../../config/lock.js';
import { readConfig, updateConfig } from '../../config/store.js';
import { TokenTarget, type TokenKind, type TokenRecord } from './shared.js';

/**
 * The machinery behind contract §8: per-token locks, recovery files, atomic saves and the check as the new token.
 * Everything here lives in the config folder: `locks/` and `recovery/`, both 0700, files 0600.
 */

export interface SaveTargets {
  /** Profile whose token is replaced (created when missing). */
  profile?: string;
  /** Absolute path of a file that receives the token value and a newline. */
  outputFile?: string;
}

/** What a recovery file holds: enough to finish the save later without ever rotating again. */
export interface RecoveryRecord {
  version: 1;
  created_at: string;
  /** Instance root URL. */
  instance: string;
  kind: TokenKind;
  resource: string;
  /** The token that was rotated (now revoked: never present it to a rotate endpoint again). */
  rotated_token_id: number;
  /** SHA-256 of the rotated token's value when it was the credential in use (`self`); identifies it offline. */
  rotated_token_sha256: string | null;
  targets: SaveTargets;
  /** The new token record, value included. */
  token: TokenRecord;
}

export const fingerprint = (value: string): string => createHash('sha256').update(value).digest('hex');

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * Token ids are unique across an instance (group, project and personal tokens alike), so locks and recovery files
 * are keyed by instance and id, never by how the group or project was spelled (`acme` or `1`).
 */
const instanceKey = (instance: string): string => shortHash(instance);

export function locksDir(configDir: string): string {
  return join(configDir, 'locks');
}

export function recoveryDir(configDir: string): string {
  return join(configDir, 'recovery');
}

/** Lock of one token by id; `self` rotations also lock the credential's fingerprint (known without a request). */
export function tokenLockPath(configDir: string, instance: string, id: number): string {
  return join(locksDir(configDir), `rotate-${instanceKey(instance)}-${id}.lock`);
}

export function selfLockPath(configDir: string, instance: string, credential: string): string {
  return join(locksDir(configDir), `rotate-${instanceKey(instance)}-self-${fingerprint(credential).slice(0, 16)}.lock`);
}

/** The locks one run holds; acquiring one it already holds succeeds (the same run may pass twice). */
export class HeldLocks {
  private readonly held = new Map<string, LockFile>();

  acquire(path: string): boolean {
    if (this.held.has(path)) return true;
    mkdirPrivate(dirname(path));
    const lock = new LockFile(path);
    if (!lock.tryAcquire()) return false;
    this.held.set(path, lock);
    return true;
  }

  /** Exit 6 when another live process holds the lock; nothing has been sent at that point. */
  require(path: string, what: string): void {
    if (this.acquire(path)) return;
    const pid = readFileSafe(path)?.trim();
    throw new CliError(
      `another forgectl run is rotating ${what} right now${pid ? ` (process ${pid})` : ''}; nothing was sent`,
      ExitCode.rejected,
      `lock: ${path}. Run again once it has finished; a lock left by a process that died is taken over automatically`,
    );
  }

  releaseAll(): void {
    for (const lock of this.held.values()) lock.release();
    this.held.clear();
  }
}

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export function mkdirPrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** fsync of a folder makes a rename or a new file in it durable (best effort where folders cannot be opened). */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms cannot fsync folders; the file itself is already fsynced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Creates a new file (never overwriting) with mode 0600, writes and fsyncs it. */
function writeNewPrivateFile(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Proves a folder takes new files before anything irreversible happens (root ignores modes, so we try). */
export function assertWritableDir(dir: string, what: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`${what}: folder ${dir} does not exist`);
  const probe = join(dir, `.forgectl-probe-${process.pid}-${Date.now()}`);
  try {
    writeNewPrivateFile(probe, '');
  } catch (error) {
    throw new UsageError(`${what}: cannot write in ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, 'nothing was sent');
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Writes the recovery file first of all: mode 0600, fsynced, in a 0700 folder. Returns its path. */
export function writeRecovery(configDir: string, record: RecoveryRecord): string {
  const dir = recoveryDir(configDir);
  mkdirPrivate(dir);
  const stamp = record.created_at.replace(/[:.]/g, '-');
  const path = join(dir, `${record.kind}-${instanceKey(record.instance)}-${record.rotated_token_id}-${stamp}.json`);
  // Written under a temporary name and renamed: a crash never leaves a half-written file under the final name.
  writeSecretFile(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

export function readRecovery(path: string): RecoveryRecord {
  let record: RecoveryRecord;
  try {
    record = JSON.parse(readFileSync(path, 'utf8')) as RecoveryRecord;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read recovery file ${path}${code ? ` (${code})` : ': not valid JSON'}`);
  }
  if (record.version !== 1 || typeof record.token?.token !== 'string') throw new UsageError(`${path} is not a forgectl recovery file`);
  return record;
}

/** Pending recovery files, oldest first, with their paths. */
export function listRecoveries(configDir: string): Array<{ path: string; record: RecoveryRecord }> {
  const dir = recoveryDir(configDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const found: Array<{ path: string; record: RecoveryRecord }> = [];
  for (const name of names) {
    try {
      found.push({ path: join(dir, name), record: readRecovery(join(dir, name)) });
    } catch {
      // A file that is not ours is left alone.
    }
  }
  return found;
}

/** The pending recovery of this token, if a rotation of it was interrupted after the service answered. */
export function findRecovery(configDir: string, instance: string, id: number | 'self', credential: string): { path: string; record: RecoveryRecord } | undefined {
  const credentialPrint = fingerprint(credential);
  return listRecoveries(configDir).find(({ record }) =>
    record.instance === instance && ((id !== 'self' && record.rotated_token_id === id) || record.rotated_token_sha256 === credentialPrint));
}

export function removeRecovery(path: string): void {
  rmSync(path, { force: true });
  fsyncDir(dirname(path));
}

/** Atomic write of a secret: temporary file 0600 in the same folder, fsync, rename, fsync of the folder. */
export function writeSecretFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  rmSync(temp, { force: true });
  try {
    writeNewPrivateFile(temp, text);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  fsyncDir(dirname(path));
}

/** Replaces the token of a profile (atomically, under the config lock); a missing profile is created. */
export async function saveTokenToProfile(configDir: string, profile: string, token: string, instance: string): Promise<void> {
  await updateConfig(configDir, (data) => {
    const existing = data.profiles[profile];
    if (!existing) {
      data.profiles[profile] = { url: instance, token };
    } else {
      existing.token = token;
      delete existing.token_command;
      delete existing.token_type;
    }
  });
}

/** Checks before rotating that every place the token goes can take it. */
export function preflight(ctx: Context, targets: SaveTargets): void {
  if (targets.profile) {
    const profile = ctx.readConfig().profiles[targets.profile];
    if (profile?.token_command) {
      throw new UsageError(`profile "${targets.profile}" takes its token from token_command; forgectl cannot save into it`, 'save with --output-file and update your password manager from it');
    }
    mkdirPrivate(ctx.configDir);
    assertWritableDir(ctx.configDir, '--save-to-profile');
  }
  if (targets.outputFile) assertWritableDir(dirname(targets.outputFile), '--output-file');
  mkdirPrivate(recoveryDir(ctx.configDir));
  assertWritableDir(recoveryDir(ctx.configDir), 'recovery folder');
}

/** Saves the token everywhere asked; returns what failed (the caller decides on exit 10). */
export async function saveEverywhere(ctx: Context, targets: SaveTargets, token: string, instance: string): Promise<string[]> {
  const failures: string[] = [];
  const reason = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  if (targets.outputFile) {
    try {
      writeSecretFile(targets.outputFile, `${token}\n`);
    } catch (error) {
      failures.push(`file ${targets.outputFile}: ${reason(error)}`);
    }
  }
  if (targets.profile) {
    try {
      await saveTokenToProfile(ctx.configDir, targets.profile, token, instance);
    } catch (error) {
      failures.push(`profile "${targets.profile}": ${reason(error)}`);
    }
  }
  return failures;
}

/**
 * Checks the new token with a GET as itself. A 403 for scope still proves the token is valid (a dead token gets
 * 401), so tokens with narrow scopes such as read_repository pass.
 */
export async function verifyToken(ctx: Context, target: TokenTarget, token: string): Promise<void> {
  const path = target.kind === 'personal' ? '/personal_access_tokens/self' : target.selfPath;
  try {
    await ctx.apiWithToken(token).get(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return;
    throw error;
  }
}

/** The profile's token as it is on disk now (another run may have replaced it since this one started). */
export function currentProfileToken(configDir: string, profile: string | undefined): string | undefined {
  if (!profile) return undefined;
  try {
    return readConfig(configDir).profiles[profile]?.token;
  } catch {
    return undefined;
  }
}

/** A client as the recovered token, on the instance the recovery file names (with the profile's TLS settings). */
function apiForRecovered(ctx: Context, record: RecoveryRecord) {
  let connection;
  try {
    connection = ctx.connection();
  } catch {
    connection = undefined;
  }
  if (connection && connection.rootUrl === record.instance) return ctx.apiWithToken(record.token.token!);
  const profile = record.targets.profile ? ctx.readConfig().profiles[record.targets.profile] : undefined;
  return ctx.apiFor({
    baseUrl: `${record.instance}/api/v4`, rootUrl: record.instance, token: record.token.token!, tokenType: 'private', tokenSource: 'environment',
    caFile: ctx.globals.caFile ?? profile?.ca_file, insecure: Boolean(ctx.globals.insecure ?? profile?.insecure),
    timeoutMs: (ctx.globals.timeout ?? profile?.timeout ?? 30) * 1000, retries: ctx.globals.retries ?? profile?.retries ?? 3,
  });
}

/**
 * Finishes a rotation that was interrupted after the service answered: checks that the recovered token works, saves
 * it where the interrupted run meant to (and where this run asks), then removes the recovery file. Never rotates.
 */
export async function finishRecovery(
  ctx: Context,
  found: { path: string; record: RecoveryRecord },
  extra: SaveTargets,
  locks: HeldLocks,
): Promise<{ token: TokenRecord; saved: SaveTargets[] }> {
  const { path, record } = found;
  const target = new TokenTarget(record.kind, record.resource);
  locks.require(tokenLockPath(ctx.configDir, record.instance, record.rotated_token_id), target.describe(record.rotated_token_id));
  const value = record.token.token!;
  const checkPath = target.kind === 'personal' ? '/personal_access_tokens/self' : target.selfPath;
  try {
    await apiForRecovered(ctx, record).get(checkPath);
  } catch (error) {
    const scopeOnly = error instanceof ApiError && error.status === 403;
    if (!scopeOnly) {
      if (error instanceof ApiError && error.status === 401) {
        throw new CliError(`the token in recovery file ${path} is rejected by the service (401): it was revoked or has expired`, ExitCode.auth,
          'nothing was saved. Create a new token (forgectl tokens create …), then delete the recovery file');
      }
      const exitCode = error instanceof CliError ? error.exitCode : ExitCode.internal;
      throw new CliError(`could not check the token in recovery file ${path}: ${(error as Error).message}`, exitCode, 'the file is kept; run forgectl tokens recover again');
    }
  }
  const plans: SaveTargets[] = [record.targets];
  if ((extra.profile && extra.profile !== record.targets.profile) || (extra.outputFile && extra.outputFile !== record.targets.outputFile)) {
    plans.push({ profile: extra.profile !== record.targets.profile ? extra.profile : undefined, outputFile: extra.outputFile !== record.targets.outputFile ? extra.outputFile : undefined });
  }
  const failures: string[] = [];
  for (const plan of plans) failures.push(...(await saveEverywhere(ctx, plan, value, record.instance)));
  if (failures.length) {
    throw new CliError(`the recovered token could not be saved: ${failures.join('; ')}`, ExitCode.rotatedNotSaved,
      `it is still in the recovery file ${path} (mode 0600); fix the cause and run: forgectl tokens recover ${path}`);
  }
  removeRecovery(path);
  return { token: record.token, saved: plans.filter((plan) => plan.profile || plan.outputFile) };
}

export function describeTargets(plans: SaveTargets[]): string {
  const parts = plans.flatMap((plan) => [plan.profile ? `profile "${plan.profile}"` : '', plan.outputFile ? `file ${plan.outputFile}` : '']).filter(Boolean);
  return parts.join(' and ');
}
