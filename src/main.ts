import type { CliDeps } from './cli/program.js';
import { COMPLETE_COMMAND, type Invocation } from './cli/command.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { commands } from './commands/manifest.js';
import { fileProblem } from './files.js';
import { KEYRING_CALL_ENV } from './config/keyring.js';
import { configDir, recoveryDir } from './config/paths.js';
import { Aborted, ApiError, CliError, DryRunComplete, ExitCode, UsageError } from './errors.js';
import { isNetworkFailure } from './http/failures.js';
import { escapeC1, oneLine } from './output/formats.js';
import { forStderr, noteStdoutError, OutputClosed, OutputState } from './output/io.js';
import { plural } from './parse.js';
import { WriteError } from './write.js';

export type { CliDeps };

/**
 * Runs forgectl with argv (without "node forgectl") and returns the exit code. Never calls process.exit and never
 * reads process globals: everything comes from deps, so tests run it in-process.
 *
 * A closed stdout (`| head -1`) ends the run quietly with exit 0. A signal (deps.interrupted) ends it at once with
 * 130 or 143 and one line on stderr saying what was left undone; a JSON array already opened on stdout is closed.
 */
export async function main(argv: string[], deps: CliDeps): Promise<number> {
  // forgectl run again by another forgectl to make one keyring call (src/config/keyring.ts): that call, nothing else.
  if (deps.env[KEYRING_CALL_ENV] === '1') return (await import('./config/keyring-helper.js')).serveKeyringCall(argv, deps);
  const state = new OutputState();
  let interrupted = false;
  const onStdoutError = (error: unknown) => noteStdoutError(state, error);
  const onStderrError = () => undefined;
  deps.stdout.on('error', onStdoutError);
  deps.stderr.on('error', onStderrError);
  try {
    const run = (argv[0] === COMPLETE_COMMAND ? import('./cli/completion.js').then(({ runCompletion }) => runCompletion(commands, argv.slice(1), deps)) : import('./cli/program.js').then(({ runCli }) => runCli(commands, argv, deps, state, execute)))
      .catch((error: unknown) => (interrupted ? ExitCode.ok : failed(error, state, wantsJson(argv), deps)))
      .then((code) => stdoutFailed(code, state, wantsJson(argv), deps));
    if (!deps.interrupted) return await run;
    const outcome = await Promise.race([run.then((code) => ({ code })), deps.interrupted.then((signal) => ({ signal }))]);
    if ('code' in outcome) return outcome.code;
    if (state.endsItselfOnInterrupt) return await run;
    interrupted = true;
    state.spinner?.stop();
    const sent = [...state.changesInFlight].map((change) => change.what);
    const unknown = sent.length ? `${sent.join(', ')} ${sent.length > 1 ? 'were' : 'was'} sent; whether the server acted on ${sent.length > 1 ? 'them' : 'it'} is unknown` : undefined;
    // A run over many projects or changes says which were done, which in flight, which never started.
    const report = state.interruptReport?.() ?? [];
    const undone = [state.incompleteNote(), unknown].filter(Boolean).join('; ') || (report.length ? 'stopped part-way' : (state.interruptNote ?? 'the command did not finish'));
    // On a terminal the line starts afresh: after the ^C the terminal echoed, or a progress bar still drawn.
    finishCutShort(state, deps, [`${deps.stderr.isTTY ? '\n' : ''}interrupted by ${outcome.signal}: ${undone}`, ...report].join('\n'));
    state.stdoutClosed = true; // the abandoned run writes nothing more
    return outcome.signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
  } finally {
    deps.stdout.off('error', onStdoutError);
    deps.stderr.off('error', onStderrError);
  }
}

/**
 * Runs one command given as an invocation (the agent interface's tool calls: options built from structured input,
 * never from words) on the path a command line runs on, its errors reported as main() reports them.
 */
export async function execute(invocation: Invocation, deps: CliDeps): Promise<number> {
  const state = new OutputState();
  try {
    const { executeCommand } = await import('./cli/program.js');
    return await executeCommand(commands, invocation, deps, state, execute);
  } catch (error) {
    return failed(error, state, invocation.globals.output === 'json' || invocation.globals.output === 'ndjson', deps);
  }
}

/** The exit code of a run that threw, with its error reported (and a cut-short list completed). */
function failed(error: unknown, state: OutputState, json: boolean, deps: CliDeps): number {
  // A write that failed is said once, after the run (stdoutFailed), instead of the OutputClosed it ended the run with.
  if (state.stdoutFailure && error instanceof OutputClosed) return ExitCode.ok;
  // The reader went away (`| head -1`): a quiet end, unless the command changed things and then failed.
  if (error instanceof OutputClosed || (state.stdoutClosed && !state.changesInFlight.sent)) return ExitCode.ok;
  const code = reportError(error, json, deps);
  finishCutShort(state, deps);
  return code;
}

/**
 * A run whose output could not be written (`> out.json` on a full disk) fails saying so, even when the command itself
 * finished: a script must not take a truncated file for the data. What the command already reported stays its code.
 */
function stdoutFailed(code: number, state: OutputState, json: boolean, deps: CliDeps): number {
  // A write that just failed has set `errored` already; its 'error' event comes on a later tick.
  const errored = (deps.stdout as { errored?: unknown }).errored;
  if (errored) noteStdoutError(state, errored);
  if (!state.stdoutFailure) return code;
  const full = ['ENOSPC', 'EDQUOT'].includes(state.stdoutFailure.code ?? '');
  const written = state.records ? ` (${plural(state.records, 'record')} written)` : '';
  const hint = `what stdout holds is incomplete${written}; ${full ? 'free some space and run the command again' : 'run the command again once it can be written'}`;
  const failure = reportError(new WriteError('stdout', state.stdoutFailure, hint), json, deps);
  return code === ExitCode.ok ? failure : code;
}

/** Completes what a cut-short list started on stdout (the `]` of a JSON array) and says on stderr what is missing. */
function finishCutShort(state: OutputState, deps: CliDeps, line = state.incompleteNote()): void {
  if (state.closer && !state.stdoutClosed) deps.stdout.write(state.closer);
  state.closer = '';
  if (line) deps.stderr.write(`${line}\n`);
}

function wantsJson(argv: string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = arg === '-o' || arg === '--output' ? argv[i + 1] : arg.startsWith('--output=') ? arg.slice(9) : arg.startsWith('-o') && arg.length > 2 ? arg.slice(2) : undefined;
    if (value === 'json' || value === 'ndjson') return true;
  }
  return false;
}

/** One line on stderr (plus a JSON line with -o json|ndjson) and the exit code of contract §5. */
export function reportError(error: unknown, json: boolean, deps: CliDeps): number {
  if (error instanceof DryRunComplete) return ExitCode.ok;
  const commander = error as { code?: string; exitCode?: number; name?: string };
  if (typeof commander.code === 'string' && commander.code.startsWith('commander.')) {
    // Commander has already printed its message (usage errors) or the help/version text.
    if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(commander.code)) return ExitCode.ok;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof CliError) return reportError(cause, json, deps);
    return ExitCode.usage;
  }
  if (error instanceof Aborted) {
    deps.stderr.write('aborted\n');
    return error.exitCode;
  }
  // Ctrl-C at a prompt (the prompt library's own error: the terminal was in raw mode, so no SIGINT came).
  if (error instanceof Error && error.name === 'ExitPromptError') return reportError(new Aborted(ExitCode.interrupted), json, deps);
  if (error instanceof CliError) {
    const where = error instanceof ApiError ? ` (${error.method} ${error.path} → ${error.status})` : '';
    // One line (a terminal's broken at its width), whatever the server or OpenSSL put in the text, and no control sequences.
    say(deps, `error: ${oneLine(error.message)}${where}`);
    const hint = error instanceof ApiError && error.status === 401 ? (recoveryHint(deps) ?? error.hint) : error.hint;
    if (hint) say(deps, `hint: ${oneLine(hint)}`);
    if (json) {
      const json: Record<string, unknown> = { status: error instanceof ApiError ? error.status : undefined, message: error.message };
      if (error instanceof ApiError) Object.assign(json, { method: error.method, path: error.path, request_id: error.requestId });
      json.exit_code = error.exitCode;
      deps.stderr.write(`${escapeC1(JSON.stringify({ error: json }), 'json')}\n`);
    }
    if (deps.env.FORGECTL_DEBUG === '1' && error.stack) deps.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const local = localFileError(error);
  if (local) return reportError(local, json, deps);
  // A connection lost while a download streamed (JSON answers are read, and classified, by the HTTP client).
  if (isNetworkFailure(error)) return reportError(new CliError(`connection failed: ${(error as Error).message}`, ExitCode.server), json, deps);
  const message = error instanceof Error ? error.message : String(error);
  say(deps, `error: internal error: ${oneLine(message)}`);
  if (deps.env.FORGECTL_DEBUG === '1' && error instanceof Error && error.stack) deps.stderr.write(`${error.stack}\n`);
  else say(deps, 'hint: set FORGECTL_DEBUG=1 for details, and report this at the project\'s issue tracker');
  return ExitCode.internal;
}

/** A message line on stderr: on a terminal, broken at white space to its width. */
const say = (deps: CliDeps, line: string): void => void deps.stderr.write(`${forStderr(deps.stderr, line)}\n`);

/**
 * A rejected token while a rotation's new token waits in a recovery file (the run that rotated it was killed or could
 * not save it): the way back is `tokens recover`, not a new token.
 */
function recoveryHint(deps: CliDeps): string | undefined {
  const dir = recoveryDir(configDir(deps.env));
  try {
    if (!readdirSync(dir).some((name) => name.endsWith('.json') && statSync(join(dir, name)).size > 0)) return undefined;
  } catch {
    return undefined;
  }
  return `a token rotation did not finish, and its new token is kept in ${dir}: see forgectl tokens recover --list, then forgectl tokens recover`;
}

/**
 * A local file operation that failed where no command turned it into a message of its own: a usage error (exit 2)
 * naming the file, not an internal error.
 */
function localFileError(error: unknown): UsageError | undefined {
  const err = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof err.path !== 'string' || typeof err.syscall !== 'string') return undefined;
  const writing = ['write', 'rename', 'mkdir', 'unlink', 'rmdir', 'chmod', 'fsync', 'copyfile', 'symlink'].includes(err.syscall);
  return new UsageError(`cannot ${writing ? 'write' : 'read'} ${err.path}: ${fileProblem(error)}`);
}
