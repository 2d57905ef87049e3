import type { CliDeps } from './cli/program.js';
import { fileProblem } from './cli/files.js';
import { ApiError, CliError, DryRunComplete, ExitCode, UsageError } from './errors.js';

export type { CliDeps };

/**
 * Runs forgectl with argv (without "node forgectl") and returns the exit code. Never calls process.exit and never
 * reads process globals: everything comes from deps, so tests run it in-process.
 */
export async function main(argv: string[], deps: CliDeps): Promise<number> {
  try {
    const { runCli } = await import('./cli/program.js');
    return await runCli(argv, deps);
  } catch (error) {
    return reportError(error, argv, deps);
  }
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
export function reportError(error: unknown, argv: string[], deps: CliDeps): number {
  if (error instanceof DryRunComplete) return ExitCode.ok;
  const commander = error as { code?: string; exitCode?: number; name?: string };
  if (typeof commander.code === 'string' && commander.code.startsWith('commander.')) {
    // Commander has already printed its message (usage errors) or the help/version text.
    if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(commander.code)) return ExitCode.ok;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof CliError) return reportError(cause, argv, deps);
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    const where = error instanceof ApiError ? ` (${error.method} ${error.path} → ${error.status})` : '';
    deps.stderr.write(`error: ${error.message}${where}\n`);
    if (error.hint) deps.stderr.write(`hint: ${error.hint}\n`);
    if (wantsJson(argv)) {
      const json: Record<string, unknown> = { status: error instanceof ApiError ? error.status : undefined, message: error.message };
      if (error instanceof ApiError) Object.assign(json, { method: error.method, path: error.path, request_id: error.requestId });
      json.exit_code = error.exitCode;
      deps.stderr.write(`${JSON.stringify({ error: json })}\n`);
    }
    if (deps.env.FORGECTL_DEBUG === '1' && error.stack) deps.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  const local = localFileError(error);
  if (local) return reportError(local, argv, deps);
  const message = error instanceof Error ? error.message : String(error);
  deps.stderr.write(`error: internal error: ${message}\n`);
  if (deps.env.FORGECTL_DEBUG === '1' && error instanceof Error && error.stack) deps.stderr.write(`${error.stack}\n`);
  else deps.stderr.write('hint: set FORGECTL_DEBUG=1 for details, and report this at the project\'s issue tracker\n');
  return ExitCode.internal;
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
