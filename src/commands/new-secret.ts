import { existsSync, mkdirSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Context, OptionDef } from '../cli/command.js';
import { inCi } from '../config/keyring.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { readLocalFile } from '../files.js';
import { writeFileAtomically } from '../write.js';
import { assertWritableDir } from './tokens/rotation.js';
import { warnStoreNow, withoutSecret } from './tokens/shared.js';

/**
 * A new secret the service shows once (a deploy token, a runner's authentication token): printed once, or with
 * --output-file written there (mode 0600, atomically) and not printed; over --projects-file, one file a project.
 */

/** Before anything is created: the folder of --output-file takes new files, and an existing file is replaced only when confirmed. */
export async function secretFileFor(ctx: Context, outputFile: string | undefined, what: string): Promise<string | undefined> {
  if (outputFile === undefined) {
    await assertSecretPrinted(ctx, 'write it to a file with --output-file FILE');
    return undefined;
  }
  const file = resolve(outputFile);
  assertWritableDir(dirname(file), '--output-file');
  if (existsSync(file)) await ctx.confirm(`Replace ${file} with the new ${what}?`);
  return file;
}

/**
 * Before anything is sent, when the new secret is to be printed: --fields, --jq or --template that would leave out
 * `token` would print the record without the one value the service shows only once. `elsewhere`: how else to keep it.
 */
export async function assertSecretPrinted(ctx: Context, elsewhere: string): Promise<void> {
  const lost = await whatLosesToken(ctx);
  if (!lost) return;
  throw new UsageError(`${lost.problem}, and the new token is shown only this once: it would be lost; nothing was sent`, `${lost.fix}, or ${elsewhere}`);
}

/**
 * A CI job's stdout is its log, kept and read by everyone with access to the project: off a terminal with CI set, a
 * new secret is printed there only when `flag` asks for it; otherwise the run stops before anything is sent.
 */
export function assertNotIntoJobLog(ctx: Context, asked: boolean | undefined, flag: string, elsewhere: string): void {
  if (asked || ctx.io.stdoutIsTTY || !inCi(ctx.env)) return;
  throw new UsageError(
    'this is a CI job (CI is set) and stdout is not a terminal: the new token would be printed into the job log, which everyone with access to the project can read; nothing was sent',
    `${elsewhere}; or, if stdout is captured and the log never sees it, give ${flag}`,
  );
}

/** --print-token of a command that makes a new secret and prints it unless a file is named. */
export const printTokenOption: OptionDef = {
  flags: '--print-token',
  description: 'print the new token in a CI job, where it is otherwise refused (stdout there is the job log, readable by everyone with access to the project); only when stdout is captured, as in TOKEN=$(…)',
};

/**
 * Before anything is sent: a new secret that is to be printed is not printed into a CI job's log unless --print-token
 * says stdout is captured (a pipe to `$(…)` and the job log look alike from here); `saved`: a file was named instead,
 * or (as words) the save targets named ("file token.txt and profile ci").
 */
export function assertPrintTarget(ctx: Context, printToken: boolean | undefined, saved: boolean | string, elsewhere: string): void {
  if (saved && printToken) {
    const [where, other] = typeof saved === 'string' ? [`saved to ${saved}`, 'the save target'] : ['written to the file named', 'the file'];
    throw new UsageError(`--print-token: the new token is ${where} and never printed`, `leave out --print-token (or ${other})`);
  }
  if (!saved) assertNotIntoJobLog(ctx, printToken, '--print-token', elsewhere);
}

/** A value no record holds: whether --jq prints it, run on a record of the token alone, says whether it prints the token. */
const PROBE = 'forgectl-probe-of-the-new-token';

async function whatLosesToken(ctx: Context): Promise<{ problem: string; fix: string } | undefined> {
  if (ctx.io.stdoutIsNull) return { problem: 'stdout is /dev/null', fix: 'let stdout reach a file kept private (umask 077; … >FILE)' };
  const { fields, jq, slurp, template } = ctx.globals;
  if (fields) return fields.includes('token') ? undefined : { problem: '--fields leaves out token', fix: 'add token to --fields' };
  if (jq !== undefined) {
    const { compileJq } = await import('../output/jq.js');
    const record = { token: PROBE };
    const [outcome] = (await compileJq(jq, ctx.env)).run([slurp ? [record] : record]).outcomes;
    return outcome?.lines.some((line) => line.includes(PROBE)) ? undefined : { problem: '--jq does not print .token', fix: "print it: --jq '.token'" };
  }
  if (template !== undefined) {
    const text = template.startsWith('@') ? readLocalFile(template.slice(1), 'utf8') : template;
    return /\{\{[^}]*\btoken\b/.test(text) ? undefined : { problem: '--template does not print {{ token }}', fix: "print it: --template '{{ token }}'" };
  }
  return undefined;
}

/** Where new secrets may go: one --output-file, or over --projects-file a file of each project's in --output-dir. */
export interface SecretFileOptions {
  outputFile?: string;
  outputDir?: string;
  projectsFile?: string;
}

/**
 * Where the new secret goes, checked (and its folder made) before anything is created; undefined: printed once. One
 * secret: --output-file (an existing file replaced only when confirmed). Over --projects-file: DIR/<project path>.token
 * of --output-dir, which is required there, never a file that exists (that project fails, the others go on): one of
 * many values shown once, amid the others' rows, is too easily lost or pasted to the wrong project.
 */
export async function secretTarget(ctx: Context, opts: SecretFileOptions, project: string, what: string): Promise<string | undefined> {
  if (opts.projectsFile === undefined) {
    if (opts.outputDir !== undefined) throw new UsageError('--output-dir is for --projects-file (one file a project)', 'for one token give --output-file FILE');
    return secretFileFor(ctx, opts.outputFile, what);
  }
  if (opts.outputFile !== undefined) throw new UsageError('--output-file holds one token: over --projects-file give --output-dir DIR (one file a project)');
  if (opts.outputDir === undefined) {
    throw new UsageError("over --projects-file give --output-dir DIR: each project's token is shown only once, and printed among the others' it is too easily lost", "each is written to DIR/<project path>.token (mode 0600) as soon as it is made");
  }
  const dir = resolve(opts.outputDir);
  const file = resolve(dir, `${project}.token`);
  if (!relative(dir, file).split(sep).every((part) => part && part !== '..')) throw new UsageError(`"${project}" is not a project path a file can be named after`);
  if (existsSync(file)) throw new CliError(`${file} exists: over --projects-file a token is not written over another (nothing was created here)`, ExitCode.usage, 'move it away, or give another --output-dir');
  if (!ctx.globals.dryRun) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    assertWritableDir(dirname(file), '--output-dir');
  }
  return file;
}

/**
 * The record with the new secret: to the file (the record is then returned without it), or printed once. When the
 * file cannot be written, `undo` takes back what was made (a secret nobody holds is not left working) and `undone`
 * says so ("deploy token 3 was revoked again").
 */
export async function handOverSecret<T extends { token: string }>(
  ctx: Context,
  created: T,
  file: string | undefined,
  words: { what: string; undone: string },
  undo: () => Promise<unknown>,
): Promise<T | Omit<T, 'token'>> {
  if (!file) {
    warnStoreNow(ctx);
    return created;
  }
  try {
    writeFileAtomically(file, `${created.token}\n`, 'secret');
  } catch (error) {
    await undo();
    throw new UsageError(`${(error as Error).message}; ${words.undone}, nothing is left of it`);
  }
  ctx.io.note(`Wrote ${words.what} to ${file} (mode 0600)`);
  return withoutSecret(created);
}
