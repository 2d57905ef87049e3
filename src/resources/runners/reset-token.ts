import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { routeOf } from '../../api/resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { locksDir, recoveryDir } from '../../config/paths.js';
import { ApiError, CliError, ExitCode, UsageError } from '../../errors.js';
import { interrupted, Interrupts, type Signal } from '../../commands/tokens/interrupts.js';
import { ANSWER_GRACE_MS } from '../../commands/tokens/rotate.js';
import { sendForNewToken, warmUp } from '../../commands/tokens/rotate-request.js';
import {
  assertWritableDir, HeldLocks, instanceKey, mkdirPrivate, recoveryPrefix, RecoveryFile, removeRecovery, writeSecretFile, type NewToken, type RecoveryDraft,
} from '../../commands/tokens/rotation.js';
import { warnStoreNow } from '../../commands/tokens/shared.js';
import { assertPrintTarget, assertSecretPrinted, printTokenOption } from '../../commands/new-secret.js';
import { readOwnFile } from '../../write.js';
import { byId, describeRunner, runnerId, runnerIdArg } from './shared.js';

/**
 * `runners reset-token`: the runner's new authentication token is kept the way `tokens rotate` keeps a new access
 * token. One run per runner at a time (a lock); a recovery file (0600) is created before the request is sent and
 * receives the token the moment its bytes arrive; the request is sent once and never retried (but for a 429); then the token goes
 * to --output-file (atomically, 0600) or to stdout, and the recovery file is removed. A run stopped after the
 * answer leaves the token in the recovery file, and the next run for that runner finishes from it without resetting
 * again.
 */

interface Options {
  id: string;
  outputFile?: string;
  printToken?: boolean;
}

/** What a runner's recovery file holds besides the token. */
interface RunnerRecovery extends RecoveryDraft {
  version: 1;
  kind: 'runner';
  /** The runner whose token was reset (named so for the recovery files' shared naming). */
  rotated_token_id: number;
  description: string;
  output_file: string | null;
}

/** Runner recovery files live beside the access tokens' ones, in a folder of their own (`tokens recover` is for those). */
const runnerRecoveryDir = (configDir: string): string => join(recoveryDir(configDir), 'runners');

export default defineCommand<Options>({
  effect: 'destructive',
  description: [
    'The runner is refused until it is given the new token (its config.toml). The new token is written to a recovery',
    'file (0600) the moment it arrives, then to --output-file (0600, atomically) or printed once; the request is sent',
    'once and never retried (a 429, a refusal the service did not act on, is waited out within --retries). Exit 10:',
    'reset but not saved (the recovery file is named); running the command again',
    'for the same runner finishes from that file instead of resetting again. Exit 130/143 on SIGINT/SIGTERM, saying',
    'where the token is. Asks first. Administrators, or the Maintainer of its group or project.',
  ].join(' '),
  exits: { 10: 'the token was reset, but could not be written to the file: stderr names the recovery file that holds it' },
  examples: ['forgectl runners reset-token 7 --output-file runner-7.token --yes', 'forgectl runners reset-token 7'],
  args: [runnerIdArg],
  options: [{ flags: '--output-file <path>', description: 'write the new token to this file (atomically, mode 0600) instead of printing it', localFile: true }, printTokenOption],
  async run(opts, ctx) {
    const runner_id = runnerId(opts.id);
    const file = opts.outputFile === undefined ? undefined : resolve(opts.outputFile);
    const instance = ctx.connection().rootUrl;
    const folder = runnerRecoveryDir(ctx.configDir);
    // Before anything is sent: every place the token goes takes new files, and a CI job's log is none of them.
    assertPrintTarget(ctx, opts.printToken, file !== undefined, 'write it to a file with --output-file FILE');
    if (file) assertWritableDir(dirname(file), '--output-file');
    else await assertSecretPrinted(ctx, 'write it to a file with --output-file FILE');
    mkdirPrivate(folder);
    assertWritableDir(folder, 'recovery folder');
    const locks = new HeldLocks();
    try {
      locks.require(join(locksDir(ctx.configDir), `runner-${instanceKey(instance)}-${runner_id}.lock`), `runner ${runner_id}`);
      const pending = findPending(folder, instance, runner_id);
      if (pending) return await finishPending(ctx, pending, file);
      return await reset(ctx, runner_id, instance, folder, file);
    } finally {
      locks.releaseAll();
    }
  },
});

async function reset(ctx: Context, runner_id: number, instance: string, folder: string, file: string | undefined): Promise<unknown> {
  const runner = await ctx.api.call<{ id: number; description: string }>(routeOf(byId, 'get'), { runner_id });
  const what = describeRunner(runner);
  await ctx.confirm(`Reset the authentication token of ${what}? It is refused until it is given the new token`);
  if (ctx.globals.dryRun) {
    await ctx.api.call(byId.routes.reset_token, { runner_id }, { retry: 'never' });
    return undefined;
  }
  removeEmpty(folder, instance, runner_id);
  const recovery = new RecoveryFile<RunnerRecovery>(ctx.configDir, {
    version: 1, created_at: ctx.now().toISOString(), instance, kind: 'runner', rotated_token_id: runner_id, description: runner.description, output_file: file ?? null,
  }, folder);
  recovery.open();
  if (recovery.failure) throw new UsageError(`recovery folder: cannot create ${recovery.path} (${recovery.failure})`, 'nothing was sent');
  const interrupts = new Interrupts(ctx);
  try {
    warmUp(recovery);
    interrupts.checkpoint((signal) => interrupted(signal, 'before the reset request was sent: nothing was sent', 'run the command again'));
    const answer = sendForNewToken(ctx, byId.routes.reset_token, { runner_id }, recovery, (cause) => unknownOutcome(runner_id, what, cause));
    const { token } = await interrupts.race(answer, (signal) => stopInFlight(ctx, signal, answer, recovery, runner_id, what));
    if (interrupts.received) throw stoppedAfterAnswer(interrupts.received, recovery, runner_id);
    if (!recovery.holdsToken) ctx.io.warn(`could not write the recovery file ${recovery.path}: ${recovery.failure ?? 'it was removed'}`);
    if (file) save(file, token, recovery, what, runner_id);
    recovery.finish(true); // handed over: saved, or printed below
    ctx.io.note(`Reset the authentication token of ${what}${file ? `; the new token is in ${file} (mode 0600)` : ''}. Give it to the runner (its config.toml); the old one is refused`);
    return handOver(ctx, runner_id, token, file);
  } finally {
    recovery.finish(false);
  }
}

/** The token to the file (atomically, 0600); exit 10 when it cannot be written: it stays in the recovery file. */
function save(file: string, token: NewToken, recovery: RecoveryFile<RunnerRecovery>, what: string, runner_id: number): void {
  try {
    writeSecretFile(file, `${token.token}\n`);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(`the token of ${what} was reset but could not be written to ${file}: ${reason}`, ExitCode.rotatedNotSaved,
      recovery.holdsToken
        ? `the new token is in the recovery file ${recovery.path} (mode 0600). Fix the cause, then run: forgectl runners reset-token ${runner_id} --output-file ${file} (it finishes from that file, it does not reset again)`
        : 'the recovery file could not be written either: reset the token again and give the runner the new one');
  }
}

/** What the command prints: the token itself only when it was not written to a file. */
function handOver(ctx: Context, id: number, token: NewToken, file: string | undefined): Record<string, unknown> {
  const record = { id, token_expires_at: (token as { token_expires_at?: string | null }).token_expires_at ?? null };
  if (file) return { ...record, output_file: file };
  warnStoreNow(ctx);
  return { ...record, token: token.token };
}

/** A signal while the request is in flight: its answer holds the only copy of the token, so wait a little for it. */
async function stopInFlight(ctx: Context, signal: Signal, answer: Promise<{ token: NewToken }>, recovery: RecoveryFile<RunnerRecovery>, id: number, what: string): Promise<never> {
  ctx.io.warn(`${signal} while the reset request is in flight: waiting up to ${ANSWER_GRACE_MS / 1000}s for its answer`);
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    answer.then(() => 'answered' as const, () => 'failed' as const),
    new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), ANSWER_GRACE_MS))),
  ]);
  clearTimeout(timer);
  if (late === 'answered') throw stoppedAfterAnswer(signal, recovery, id);
  throw interrupted(signal, `while the reset request was in flight: ${unknownOutcome(id, what, new Error('no answer came')).message}`, unknownHint(id));
}

function stoppedAfterAnswer(signal: Signal, recovery: RecoveryFile<RunnerRecovery>, id: number): CliError {
  if (recovery.holdsToken) {
    return interrupted(signal, `after the token was reset: the new token is in the recovery file ${recovery.path} (mode 0600)`,
      `run forgectl runners reset-token ${id} again (with --output-file to save it): it finishes from that file without resetting again`);
  }
  return interrupted(signal, 'after the token was reset, and the recovery file could not be written', unknownHint(id));
}

const unknownHint = (id: number): string =>
  `a runner's token cannot be read back: if the runner is refused, reset it again (forgectl runners reset-token ${id}) and give the runner the new token`;

function unknownOutcome(id: number, what: string, cause: unknown): CliError {
  return new CliError(`the outcome of resetting the token of ${what} is unknown: ${(cause as Error).message ?? String(cause)}. The request was sent once and was NOT retried`, ExitCode.server, unknownHint(id));
}

interface Pending {
  path: string;
  record: RunnerRecovery & { token: NewToken };
}

/** The recovery file of an interrupted reset of this runner, if one holds a token. */
function findPending(folder: string, instance: string, id: number): Pending | undefined {
  const prefix = recoveryPrefix('runner', instance, id);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.startsWith(prefix) && name.endsWith('.json')).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const path = join(folder, name);
    try {
      const record = JSON.parse(readOwnFile(path) ?? '') as Pending['record'];
      if (record.kind === 'runner' && typeof record.token?.token === 'string') return { path, record };
    } catch {
      // Empty (a run killed before its answer) or not ours.
    }
  }
  return undefined;
}

/** Empty recovery files of this runner: runs stopped before their answer came. Only under the runner's lock. */
function removeEmpty(folder: string, instance: string, id: number): void {
  const prefix = recoveryPrefix('runner', instance, id);
  for (const name of readdirSync(folder).filter((entry) => entry.startsWith(prefix))) {
    const path = join(folder, name);
    if (statSync(path).size === 0) removeRecovery(path);
  }
}

/** Finishes an interrupted reset from its recovery file: checks the token still works, saves or prints it. Never resets. */
async function finishPending(ctx: Context, pending: Pending, file: string | undefined): Promise<unknown> {
  const { path, record } = pending;
  const what = describeRunner({ id: record.rotated_token_id, description: record.description });
  ctx.io.warn(`a reset of the token of ${what} was interrupted on ${record.created_at}; finishing it from ${path} instead of resetting again`);
  try {
    await ctx.api.call(byId.routes.verify, { token: record.token.token });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403) throw error;
    throw new CliError(`the token in recovery file ${path} is refused by the service: the token of ${what} was reset again since`, ExitCode.rejected,
      `delete ${path}; then reset the token again (forgectl runners reset-token ${record.rotated_token_id}) and give the runner the new one`);
  }
  const target = file ?? record.output_file ?? undefined;
  if (target) {
    try {
      writeSecretFile(target, `${record.token.token}\n`);
    } catch (error) {
      throw new CliError(`the recovered token of ${what} could not be written to ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, ExitCode.rotatedNotSaved,
        `it is still in the recovery file ${path} (mode 0600); fix the cause and run the command again`);
    }
  }
  removeRecovery(path);
  ctx.io.note(`Recovered the token of ${what}${target ? `; it is in ${target} (mode 0600)` : ''}; it was not reset again`);
  return handOver(ctx, record.rotated_token_id, record.token, target);
}
