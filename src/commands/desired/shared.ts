import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context, OptionDef } from '../../cli/command.js';
import { checkWritableTarget, readLocalFile } from '../../files.js';
import { collect } from '../../parse.js';
import { DesiredFileError, parseDesiredState, type DesiredState } from '../../desired/file.js';
import { concurrencyOption, DEFAULT_CONCURRENCY } from '../../cli/fleet-options.js';

/** What plan, apply, export and validate share: the file option, targets, and reading the file. */

export const fileOption: OptionDef = { flags: '-f, --file <file>', description: 'the desired-state file (YAML; - for stdin)', required: true };

export const targetOptions: OptionDef[] = [
  { flags: '--target <glob>', description: 'the projects "*" means: group/** or a full path (repeatable; default: the file\'s target, else its scopes)', parse: collect },
  { flags: '--exclude <glob>', description: 'leave out projects and groups whose full path matches (repeatable)', parse: collect },
  concurrencyOption,
];

export interface TargetFlags {
  target?: string[];
  exclude?: string[];
  concurrency?: number;
}

export const concurrencyOf = (opts: TargetFlags): number => opts.concurrency ?? DEFAULT_CONCURRENCY;

/** The text of the file (or stdin). */
export async function readText(ctx: Context, file: string): Promise<string> {
  return file === '-' ? ctx.io.readStdin() : readLocalFile(file, 'utf8');
}

/** Reads and checks a desired-state file; with several problems each gets its line on stderr before the error. */
export async function readDesired(ctx: Context, file: string, text?: string): Promise<DesiredState> {
  try {
    return await parseDesiredState(file === '-' ? 'stdin' : file, text ?? (await readText(ctx, file)));
  } catch (error) {
    if (error instanceof DesiredFileError && error.problems.length > 1) for (const line of error.lines()) ctx.io.streams.stderr.write(`${line}\n`);
    throw error;
  }
}

/** The folder relative paths of the file start from (stdin: the current folder). */
export const baseDirOf = (file: string): string => (file === '-' ? process.cwd() : dirname(resolve(file)));

/** Writes a file atomically (a temporary file fsynced, then renamed), mode 0600. */
export function writeFileAtomically(path: string, text: string): void {
  checkWritableTarget(path);
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}
