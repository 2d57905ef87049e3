import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { TokenRecord } from '../../resources/access-tokens/values.js';
import type { Context } from '../../cli/command.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { LockFile } from '../../config/lock.js';
import { locksDir, recoveryDir } from '../../config/paths.js';
import { instanceIdentity, normalizeBaseUrl } from '../../config/resolve.js';
import { saveProfileToken } from '../../config/credentials.js';
import { keyringRead, loadStoredToken } from '../../config/keyring.js';
import { readConfig } from '../../config/store.js';
import { TokenTarget, type AccountRef, type RotatableKind } from './shared.js';
import { createNew, fileProblem, writeAll } from '../../write.js';
import type { Api } from '../../api/client.js';
import { runHelper, targetName, writeCiVar, type ExtraTarget } from './save-targets.js';

/**
 * The machinery behind cron-safe rotation: per-token locks, recovery files, atomic saves and the check as the new
 * token. Everything here lives in the config folder: `locks/` and `recovery/`, both 0700, files 0600.
 */

export interface SaveTargets {
  /** Profile whose token is replaced (created when missing). */
  profile?: string;
  /** Absolute path of a file that receives the token value and a newline. */
  outputFile?: string;
  /** CI/CD variables and helpers (--save-to), in the order given; written after the profile and the file. */
  extra?: ExtraTarget[];
}

/** A rotated token as the service answered: the full record, or only its value when the answer was cut short. */
export type NewToken = Partial<TokenRecord> & { token: string };

/** What a recovery file holds: enough to finish the save later without ever rotating again. */
export interface RecoveryRecord {
  version: 1;
  created_at: string;
  /** Instance root URL. */
  instance: string;
  kind: RotatableKind;
  resource: string;
  /** The service account whose token was rotated (`kind` service-account; `resource` its group, or empty). */
  service_account?: AccountRef;
  /** The token that was rotated (now revoked: never present it to a rotate endpoint again). */
  rotated_token_id: number;
  /** SHA-256 of the rotated token's value when it was the credential in use (`self`); identifies it offline. */
  rotated_token_sha256: string | null;
  targets: SaveTargets;
  /**
   * SHA-256 of what each target held when the rotation was sent (null: nothing). A target that still holds it waits
   * for this token; one that holds something else has been given a newer token since.
   */
  previous: { profile?: string | null; output_file?: string | null };
  /** The new token, value included. */
  token: NewToken;
}

export const fingerprint = (value: string): string => createHash('sha256').update(value).digest('hex');

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * Token ids are unique across an instance (group, project and personal tokens alike), so locks and recovery files
 * are keyed by the instance and the id, never by how the URL, the group or the project was spelled.
 */
export const instanceKey = (instance: string): string => shortHash(instanceIdentity(instance));

const sameInstance = (a: string, b: string): boolean => instanceIdentity(a) === instanceIdentity(b);

/** Lock of one token by id; `self` rotations also lock the credential's fingerprint (known without a request). */
export function tokenLockPath(configDir: string, instance: string, id: number): string {
  return lockPathByKey(configDir, instanceKey(instance), id);
}

const lockPathByKey = (configDir: string, key: string, id: number | string): string => join(locksDir(configDir), `rotate-${key}-${id}.lock`);

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
    const pid = /^\d+/.exec(readFileSafe(path) ?? '')?.[0];
    throw new CliError(
      `another forgectl run is rotating ${what} right now${pid ? ` (process ${pid})` : ''}; nothing was sent`,
      ExitCode.rejected,
      `lock: ${path}. Run again once it has finished; a lock left by a process that is gone is taken over automatically`,
    );
  }

  holds(path: string): boolean {
    return this.held.has(path);
  }

  release(path: string): void {
    this.held.get(path)?.release();
    this.held.delete(path);
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

/** Creates a new file (never overwriting) with mode 0600, writes it in one call and fsyncs it. */
function writeNewPrivateFile(path: string, text: string): void {
  const fd = createNew(path, 'secret');
  try {
    writeAll(fd, Buffer.from(text));
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
    throw new UsageError(`${what}: cannot write in ${dir}: ${fileProblem(error)}`, unwritableHint(dir));
  } finally {
    rmSync(probe, { force: true });
  }
}

/** What to do about a folder forgectl cannot write in: its owner and mode, or a flag that forbids any change. */
export const unwritableHint = (dir: string): string =>
  `nothing was sent. Make ${dir} writable for this user (ls -ld and lsattr -d show its owner, mode and an immutable flag; chattr -i clears that), then run again`;

/** What a recovery file names besides the token: when, on which instance, and whose token it is (kind and id). */
export interface RecoveryDraft {
  created_at: string;
  instance: string;
  kind: string;
  rotated_token_id: number;
}

/**
 * The recovery file of one rotation. It is created before the rotate request is sent (O_EXCL, 0600, the folder
 * fsynced), so that when the answer arrives a single write stands between the new token and a file
 * `tokens recover` finds: no temporary name, no rename. A run killed before the answer leaves the file empty: it
 * holds nothing, is ignored, and the next rotation of the same token removes it.
 */
export class RecoveryFile<D extends RecoveryDraft = Omit<RecoveryRecord, 'token'>> {
  readonly path: string;
  /** Why the file could not be created or written, when it could not. */
  failure?: string;
  private fd?: number;
  private written = false;
  private finished = false;
  private removed = false;

  constructor(
    configDir: string,
    private readonly draft: NoInfer<D>,
    /** Where the file goes: the recovery folder, or a folder of its own for other secrets (a runner's token). */
    folder = recoveryDir(configDir),
  ) {
    const stamp = draft.created_at.replace(/[:.]/g, '-');
    this.path = join(folder, `${recoveryPrefix(draft.kind, draft.instance, draft.rotated_token_id)}${stamp}.json`);
  }

  /** Creates the (empty) file; a failure is kept and reported when the token arrives. */
  open(): void {
    try {
      this.fd = createNew(this.path, 'secret');
    } catch (error) {
      this.failure = fileProblem(error);
      return;
    }
    fsyncDir(dirname(this.path));
  }

  /** The file's content for this token. */
  serialize(token: NewToken): string {
    return `${JSON.stringify({ ...this.draft, token }, null, 2)}\n`;
  }

  /** Synchronous on purpose: nothing else may run between the answer and this write. Never throws. */
  write(token: NewToken): void {
    if (this.written || this.fd === undefined) return;
    try {
      writeAll(this.fd, Buffer.from(this.serialize(token)));
      this.written = true;
      fsyncSync(this.fd);
    } catch (error) {
      this.failure ??= fileProblem(error);
    }
  }

  /** The file holds the new token and is where `tokens recover` looks (not removed or replaced meanwhile). */
  get holdsToken(): boolean {
    if (!this.written || this.removed) return false;
    if (this.fd === undefined) return true;
    try {
      return fstatSync(this.fd).ino === statSync(this.path).ino;
    } catch {
      return false;
    }
  }

  /** Closes the file once: it stays only while it holds a token that is not `saved` anywhere else. */
  finish(saved: boolean): void {
    if (this.finished) return;
    this.finished = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (saved || !this.written) {
      removeRecovery(this.path);
      this.removed = true;
    }
  }
}


/** Recovery files of one token are named `<kind>-<instance>-<id>-<time>.json`. */
export function recoveryPrefix(kind: string, instance: string, id: number): string {
  return `${kind}-${instanceKey(instance)}-${id}-`;
}

/** `<kind>-<instance key>-<id>-<time>.json`: the parts that name the lock of the token. */
const RECOVERY_NAME = /^(?:group|project|personal|service-account)-([0-9a-f]{12})-(\d+)-.+\.json$/;

const isEmptyFile = (path: string): boolean => {
  try {
    return statSync(path).size === 0;
  } catch {
    return false;
  }
};

/**
 * Removes the empty recovery files of runs that died before their answer arrived: a rotation creates its file empty
 * before sending, and fills it the moment the answer is here. Each is removed only under its token's lock (taken for
 * the moment, or held by this run), so never while a live run may still fill it, and only while it is still empty: a
 * file that holds anything is never removed here.
 */
export function removeAbandonedPlaceholders(configDir: string, locks: HeldLocks): void {
  const dir = recoveryDir(configDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = RECOVERY_NAME.exec(name);
    const path = join(dir, name);
    if (!match || !isEmptyFile(path)) continue;
    const lock = lockPathByKey(configDir, match[1], match[2]);
    const held = locks.holds(lock);
    if (!held && !locks.acquire(lock)) continue;
    try {
      if (isEmptyFile(path)) removeRecovery(path);
    } finally {
      if (!held) locks.release(lock);
    }
  }
}

export function readRecovery(path: string): RecoveryRecord {
  let record: RecoveryRecord;
  try {
    record = JSON.parse(readFileSync(path, 'utf8')) as RecoveryRecord;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read recovery file ${path}: ${code ? fileProblem(error) : 'not valid JSON'}`);
  }
  if (record.version !== 1 || typeof record.token?.token !== 'string') throw new UsageError(`${path} is not a forgectl recovery file`);
  return record;
}

export interface Recovery {
  path: string;
  record: RecoveryRecord;
}

/** Recovery files, oldest first, with their paths. */
export function listRecoveries(configDir: string): Recovery[] {
  const dir = recoveryDir(configDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const found: Recovery[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      found.push({ path, record: readRecovery(path) });
    } catch {
      // Not ours, or empty (a rotation in flight, or killed before its answer): nothing to recover from it.
    }
  }
  return found;
}

/**
 * The token a target holds now: a profile's token, or a file's content; `{}` when it holds none, and 'unreadable'
 * when that cannot be told (a target that cannot be read is never judged to hold something else).
 */
async function heldBy(configDir: string, target: 'profile' | 'outputFile', where: string): Promise<{ value?: string } | 'unreadable'> {
  try {
    if (target === 'profile') {
      const profile = readConfig(configDir).profiles[where];
      return { value: profile?.token_keyring ? await keyringRead(profile.token_keyring) : profile?.token };
    }
    return { value: readFileSync(where, 'utf8').trim() || undefined };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? {} : 'unreadable';
  }
}

/** Where a recovery file's token stands: each target holds it (saved), holds a newer one, or still waits for it. */
export interface RecoveryState {
  /** Targets that still wait for the recovered token. */
  pending: SaveTargets;
  /** Targets given another token since the rotation (never overwritten with the recovered one). */
  superseded: SaveTargets;
  /**
   * Every target holds the recovered token or a newer one: the file has done its job. A rotation without targets
   * (the token was to be printed) is never finished here: only `tokens recover` hands its token over.
   */
  finished: boolean;
}

export async function recoveryState(configDir: string, record: RecoveryRecord, path?: string): Promise<RecoveryState> {
  const pending: SaveTargets = {};
  const superseded: SaveTargets = {};
  // A CI/CD variable that is hidden, or a helper, cannot be read back: the progress file says which were written.
  const done = path ? readProgress(path) : new Set<string>();
  const extra = (record.targets.extra ?? []).filter((target) => !done.has(targetName(target)));
  if (extra.length) pending.extra = extra;
  const judge = async (target: 'profile' | 'outputFile', where: string | undefined, previous: string | null | undefined): Promise<void> => {
    if (!where) return;
    const held = await heldBy(configDir, target, where);
    if (held !== 'unreadable' && held.value === record.token.token) return;
    // Never drop a token that cannot be proven saved: an unreadable target, or an unknown previous value, waits.
    const changed = held !== 'unreadable' && previous !== undefined && (held.value === undefined ? null : fingerprint(held.value)) !== previous;
    (changed ? superseded : pending)[target] = where;
  };
  await judge('profile', record.targets.profile, record.previous?.profile);
  await judge('outputFile', record.targets.outputFile, record.previous?.output_file);
  const hasTargets = Boolean(record.targets.profile || record.targets.outputFile || record.targets.extra?.length);
  return { pending, superseded, finished: hasTargets && !pending.profile && !pending.outputFile && !pending.extra };
}

/** What the targets hold now, as fingerprints (the `previous` of a recovery record). */
export async function targetFingerprints(configDir: string, targets: SaveTargets): Promise<RecoveryRecord['previous']> {
  const print = (held: Awaited<ReturnType<typeof heldBy>>): string | null | undefined => (held === 'unreadable' ? undefined : held.value === undefined ? null : fingerprint(held.value));
  return {
    ...(targets.profile ? { profile: print(await heldBy(configDir, 'profile', targets.profile)) } : {}),
    ...(targets.outputFile ? { output_file: print(await heldBy(configDir, 'outputFile', targets.outputFile)) } : {}),
  };
}

/**
 * Removes recovery files whose token every target already holds (or has replaced with a newer one): a run killed
 * after its save but before its clean-up, or a file whose token was saved by hand. Returns what it removed.
 */
export async function sweepFinished(configDir: string): Promise<Recovery[]> {
  const removed: Recovery[] = [];
  for (const found of listRecoveries(configDir)) {
    if (!(await recoveryState(configDir, found.record, found.path)).finished) continue;
    removeRecovery(found.path);
    removed.push(found);
  }
  return removed;
}

/** The pending recovery of this token, if a rotation of it was interrupted after the service answered. */
export function findRecovery(configDir: string, instance: string, match: { id?: number; credential?: string }): Recovery | undefined {
  const credentialPrint = match.credential === undefined ? undefined : fingerprint(match.credential);
  // Also the rotation that made the credential in use: it was saved to the profile, but a target after it was not.
  return listRecoveries(configDir).find(({ record }) =>
    sameInstance(record.instance, instance)
    && (record.rotated_token_id === match.id || (credentialPrint !== undefined && (record.rotated_token_sha256 === credentialPrint || record.token.token === match.credential))));
}

export function removeRecovery(path: string): void {
  rmSync(path, { force: true });
  rmSync(progressPath(path), { force: true });
  fsyncDir(dirname(path));
}

/** Beside a recovery file, the names of the --save-to targets already written (no secret in it). */
const progressPath = (recoveryPath: string): string => `${recoveryPath}.progress`;

function readProgress(recoveryPath: string): Set<string> {
  try {
    return new Set((JSON.parse(readFileSync(progressPath(recoveryPath), 'utf8')) as { done: string[] }).done);
  } catch {
    return new Set();
  }
}

/** Records that a target was written (atomically: a half-written progress file would lose what it said). */
function markDone(recoveryPath: string, name: string): void {
  const done = readProgress(recoveryPath);
  done.add(name);
  writeSecretFile(progressPath(recoveryPath), `${JSON.stringify({ done: [...done] })}\n`);
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

/**
 * Replaces the token of a profile where it keeps it — the OS keyring or the config file (atomically, under the config
 * lock); a missing profile is created, with its token in the file.
 */
export async function saveTokenToProfile(configDir: string, profile: string, token: string, instance: string): Promise<void> {
  const existing = readConfig(configDir).profiles[profile];
  // The profile's token is sent to the profile's URL: never a token of another instance (tokens recover --save-to-profile).
  if (existing?.url && instanceIdentity(existing.url) !== instanceIdentity(instance)) throw new Error(`it is for ${normalizeBaseUrl(existing.url).rootUrl}, and the token is of ${instance}`);
  await saveProfileToken(configDir, profile, token, { storage: 'same', url: instance, tokenType: 'private', replaceCommand: true }, existing);
}

/** Checks before rotating that every place the token goes can take it. */
export async function preflight(ctx: Context, targets: SaveTargets): Promise<void> {
  if (targets.profile) {
    const profile = ctx.readConfig().profiles[targets.profile];
    if (profile?.token_command) {
      throw new UsageError(`profile "${targets.profile}" takes its token from token_command; forgectl cannot save into it`, 'save with --output-file and update your password manager from it');
    }
    // A profile's token is sent to the profile's URL: a token of this instance saved there would go to another host.
    const here = ctx.connection().rootUrl;
    if (profile?.url && instanceIdentity(profile.url) !== instanceIdentity(here)) {
      throw new UsageError(`--save-to-profile ${targets.profile}: that profile is for ${normalizeBaseUrl(profile.url).rootUrl}, and the token is of ${here}`, 'nothing was sent: a token goes only to its own instance; name a profile of this instance (a new name creates one)');
    }
    mkdirPrivate(ctx.configDir);
    assertWritableDir(ctx.configDir, `cannot save the new token to profile "${targets.profile}"`);
    // A profile kept in the keyring: the keyring must answer now, before anything irreversible is sent.
    if (profile?.token_keyring) {
      try {
        await keyringRead(profile.token_keyring);
      } catch (error) {
        throw new UsageError(`--save-to-profile: profile "${targets.profile}" keeps its token in the OS keyring, which cannot be used here: ${(error as Error).message}`, 'nothing was sent. Unlock the keyring, or move the profile to the file first: forgectl auth migrate --to file');
      }
    }
  }
  if (targets.outputFile) assertWritableDir(dirname(targets.outputFile), `--output-file ${targets.outputFile}`);
  mkdirPrivate(recoveryDir(ctx.configDir));
  assertWritableDir(recoveryDir(ctx.configDir), 'cannot keep the new token in the recovery folder');
}

/** What --save-to targets need besides the token: a client to write variables with, and the token's facts. */
export interface ExtraContext {
  /** Writes CI/CD variables: the new token when the rotated token was the credential in use (it is revoked now). */
  api: Api;
  token: NewToken;
  instance: string;
  /** The recovery file whose progress records each written target (none when it could not be written). */
  recoveryPath?: string;
}

/** Why a target was not written, in words, naming the file when a file operation failed. */
function whyNotWritten(error: unknown): string {
  const path = (error as NodeJS.ErrnoException).path;
  return `${fileProblem(error)}${typeof path === 'string' ? ` (${path})` : ''}`;
}

/** How far a save has come: what was saved, what failed, what is being written, and what was never started. */
export interface SaveProgress {
  saved: string[];
  failures: string[];
  /** The target being written right now. */
  current?: string;
  /** Targets not started yet (and never, when the run is stopped). */
  left: string[];
}

/**
 * Saves the token everywhere asked: the file, the profile, then each --save-to target in order, each verified.
 * Records in `progress` what was saved and what failed (the caller decides on exit 10); a failure does not stop the
 * others, but `stopped()` does, before the next target (a signal: the recovery file keeps what is left).
 */
export async function saveEverywhere(
  ctx: Context,
  targets: SaveTargets,
  token: string,
  instance: string,
  extra?: ExtraContext,
  control: { progress?: SaveProgress; stopped?: () => boolean } = {},
): Promise<SaveProgress> {
  const progress = control.progress ?? { saved: [], failures: [], left: [] };
  const steps: Array<{ name: string; write: () => Promise<string | undefined> }> = [];
  if (targets.outputFile) steps.push({ name: `file ${targets.outputFile}`, write: async () => void writeSecretFile(targets.outputFile!, `${token}\n`) });
  if (targets.profile) steps.push({ name: `profile "${targets.profile}"`, write: async () => void (await saveTokenToProfile(ctx.configDir, targets.profile!, token, instance)) });
  for (const target of targets.extra ?? []) {
    const name = targetName(target);
    steps.push({
      name,
      write: async () => {
        if (!extra) throw new Error('not written');
        const how = 'ciVar' in target
          ? await writeCiVar(extra.api, target.ciVar, token)
          : await runHelper(ctx, target.exec, token, { name: extra.token.name, id: extra.token.id, expires_at: extra.token.expires_at, instance });
        if (extra.recoveryPath) markDone(extra.recoveryPath, name);
        return how;
      },
    });
  }
  progress.left.push(...steps.map((step) => step.name));
  for (const step of steps) {
    if (control.stopped?.()) break;
    progress.left.shift();
    progress.current = step.name;
    try {
      const how = await step.write();
      progress.saved.push(how ? `${step.name} (${how})` : step.name);
    } catch (error) {
      progress.failures.push(`${step.name}: ${whyNotWritten(error)}`);
    }
    progress.current = undefined;
  }
  return progress;
}

/** A token's own record, read as the token itself (`self` under its group or project, or the personal one). */
const readOwnRecord = (api: Api, target: TokenTarget): Promise<TokenRecord> => target.read(api, 'self');

/** The tokens a recovery file's token belongs to. */
const targetOf = (record: RecoveryRecord): TokenTarget => new TokenTarget(record.kind, record.resource, record.service_account?.username, record.service_account);

/**
 * Checks the new token with a GET as itself and returns its record. A 403 for scope still proves the token is valid
 * (a dead token gets 401), so tokens with narrow scopes such as read_repository pass (without a record).
 */
export async function verifyToken(ctx: Context, target: TokenTarget, token: string): Promise<TokenRecord | undefined> {
  try {
    return await readOwnRecord(ctx.apiWithToken(token), target);
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return undefined;
    throw error;
  }
}

/** The profile's token as it is on disk now (another run may have replaced it since this one started). */
export async function currentProfileToken(configDir: string, profile: string | undefined): Promise<string | undefined> {
  if (!profile) return undefined;
  try {
    return await loadStoredToken(profile, readConfig(configDir).profiles[profile]);
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
  if (connection && sameInstance(connection.rootUrl, record.instance)) return ctx.apiWithToken(record.token.token);
  const profile = record.targets.profile ? ctx.readConfig().profiles[record.targets.profile] : undefined;
  return ctx.apiFor({
    baseUrl: `${record.instance}/api/v4`, rootUrl: record.instance, token: record.token.token, tokenType: 'private', tokenSource: 'environment',
    caFile: ctx.globals.caFile ?? profile?.ca_file, insecure: Boolean(ctx.globals.insecure ?? profile?.insecure),
    timeoutMs: (ctx.globals.timeout ?? profile?.timeout ?? 30) * 1000, retries: ctx.globals.retries ?? profile?.retries ?? 3,
  });
}

export interface Finished {
  token: NewToken;
  /** Where this run saved the token. */
  saved: SaveTargets[];
  /** The file had already done its job: every target held the token or a newer one. Nothing was sent or saved. */
  alreadySaved: boolean;
}

/**
 * Finishes a rotation that was interrupted after the service answered: checks that the recovered token works, saves
 * it to the targets that still wait for it (and where this run asks), then removes the recovery file. Never rotates.
 * A target that holds the token already, or a newer one, is left alone.
 */
export async function finishRecovery(ctx: Context, found: Recovery, extra: SaveTargets, locks: HeldLocks): Promise<Finished> {
  const { path, record } = found;
  const target = targetOf(record);
  locks.require(tokenLockPath(ctx.configDir, record.instance, record.rotated_token_id), target.describe(record.rotated_token_id));
  const state = await recoveryState(ctx.configDir, record, path);
  const plans: SaveTargets[] = [state.pending];
  if ((extra.profile && extra.profile !== record.targets.profile) || (extra.outputFile && extra.outputFile !== record.targets.outputFile)) {
    plans.push({ profile: extra.profile !== record.targets.profile ? extra.profile : undefined, outputFile: extra.outputFile !== record.targets.outputFile ? extra.outputFile : undefined });
  }
  const toSave = plans.filter((plan) => plan.profile || plan.outputFile || plan.extra?.length);
  if (state.finished && !toSave.length) {
    removeRecovery(path);
    return { token: record.token, saved: [], alreadySaved: true };
  }

  try {
    await readOwnRecord(apiForRecovered(ctx, record), target);
  } catch (error) {
    const scopeOnly = error instanceof ApiError && error.status === 403;
    if (!scopeOnly) {
      if (error instanceof ApiError && error.status === 401) {
        const replaced = describeTargets([state.superseded]);
        throw new CliError(`the token in recovery file ${path} is rejected by the service (401): it was revoked or has expired`, ExitCode.auth,
          replaced
            ? `nothing was saved. ${replaced} holds a newer token than this file; check that it works, then delete the file`
            : 'nothing was saved. Create a new token (forgectl tokens create …), then delete the recovery file');
      }
      const exitCode = error instanceof CliError ? error.exitCode : ExitCode.internal;
      throw new CliError(`could not check the token in recovery file ${path}: ${(error as Error).message}`, exitCode, 'the file is kept; run forgectl tokens recover again');
    }
  }
  const failures: string[] = [];
  const saved: string[] = [];
  // The rotated token was the credential in use (self): it is revoked, so variables are written as the new token.
  const writer = record.rotated_token_sha256 ? apiForRecovered(ctx, record) : ctx.api;
  for (const plan of toSave) {
    const outcome = await saveEverywhere(ctx, plan, record.token.token, record.instance, { api: writer, token: record.token, instance: record.instance, recoveryPath: path });
    failures.push(...outcome.failures);
    saved.push(...outcome.saved);
  }
  if (failures.length) {
    throw new CliError(`the recovered token could not be saved everywhere: not updated: ${failures.join('; ')}${saved.length ? `; updated: ${saved.join(', ')}` : ''}`, ExitCode.rotatedNotSaved,
      `it is still in the recovery file ${path} (mode 0600); fix the cause and run: forgectl tokens recover ${path} (it writes only what is not updated yet).`
      + ` Until then no rotation of this token runs: a target that will never work again (a helper that is gone, a deleted project) is taken out, after asking, with forgectl tokens recover ${path} --drop TARGET (as given to --save-to)`);
  }
  removeRecovery(path);
  return { token: record.token, saved: toSave, alreadySaved: false };
}

export function describeTargets(plans: SaveTargets[]): string {
  const parts = plans.flatMap((plan) => [plan.profile ? `profile "${plan.profile}"` : '', plan.outputFile ? `file ${plan.outputFile}` : '', ...(plan.extra ?? []).map(targetName)]).filter(Boolean);
  return parts.join(' and ');
}
