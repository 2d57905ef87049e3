import type { Context } from '../../cli/command.js';
import type { Connection, Target } from '../../config/resolve.js';
import { CliError, ExitCode } from '../../errors.js';

export type Section = 'configuration' | 'network' | 'service' | 'token';
export type Status = 'pass' | 'warn' | 'fail' | 'skip';

/** One line of `doctor`: the shape of its `-o json` records (documented in the README; keep it stable). */
export interface CheckResult {
  section: Section;
  check: string;
  status: Status;
  /** What was found. */
  found: string;
  /** The command or setting that fixes it (null when nothing needs fixing). */
  fix: string | null;
  /** The exit code this check ends the run with when it fails (null unless it failed). */
  exit_code: number | null;
}

/** What earlier checks learned and later ones use. */
export interface DoctorState {
  ctx: Context;
  fix: boolean;
  /** The instance and transport settings in use, known even when the token cannot be read. */
  target?: Target;
  connection?: Connection;
  /** GET /version answered 401: the instance is there, but says nothing of itself without a valid token. */
  versionUnauthorized?: boolean;
  /** The instance's answer to GET /version, when it answered. */
  version?: { version: string; header: (name: string) => string | undefined; ms: number };
  /** GET /user succeeded. */
  tokenValid?: boolean;
  /** Whom the token belongs to (GET /user), when it answered. */
  user?: { username: string; bot?: boolean };
  scopes?: string[];
  /** The token's expiry as its own record says (null: never; undefined: unknown). */
  expiresAt?: string | null;
}

export const pass = (found: string): Outcome => ({ status: 'pass', found, fix: null });
export const warn = (found: string, fix: string): Outcome => ({ status: 'warn', found, fix });
export const fail = (found: string, fix: string, exitCode: number): Outcome => ({ status: 'fail', found, fix, exitCode });
export const skip = (found: string): Outcome => ({ status: 'skip', found, fix: null });

export interface Outcome {
  status: Status;
  found: string;
  fix: string | null;
  exitCode?: number;
}

export interface CheckDef {
  section: Section;
  check: string;
  run(state: DoctorState): Promise<Outcome> | Outcome;
}

/** The checks of one section, in order, by name: `checksOf('network', { dns: checkDns, tcp: checkTcp })`. */
export const checksOf = (section: Section, checks: Record<string, CheckDef['run']>): CheckDef[] => Object.entries(checks).map(([check, run]) => ({ section, check, run }));

/** Runs the checks in order; a check that throws fails with the error's exit code and message. */
export async function runChecks(checks: CheckDef[], state: DoctorState): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const def of checks) {
    let outcome: Outcome;
    try {
      outcome = await def.run(state);
    } catch (error) {
      const code = error instanceof CliError ? error.exitCode : ExitCode.internal;
      outcome = fail((error as Error).message, (error instanceof CliError && error.hint) || 'run the failing command with --verbose for details', code);
    }
    results.push({ section: def.section, check: def.check, status: outcome.status, found: outcome.found, fix: outcome.fix, exit_code: outcome.status === 'fail' ? (outcome.exitCode ?? ExitCode.internal) : null });
  }
  return results;
}

/** 0 when every check passed (or was skipped), 9 when some only warn, else the first failing check's code. */
export function doctorExitCode(results: CheckResult[]): number {
  const failed = results.find((result) => result.status === 'fail');
  if (failed) return failed.exit_code ?? ExitCode.internal;
  return results.some((result) => result.status === 'warn') ? ExitCode.attention : ExitCode.ok;
}
