import { existsSync, mkdirSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Context } from '../cli/command.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
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
    assertSecretPrinted(ctx, 'write it to a file with --output-file FILE');
    return undefined;
  }
  const file = resolve(outputFile);
  assertWritableDir(dirname(file), '--output-file');
  if (existsSync(file)) await ctx.confirm(`Replace ${file} with the new ${what}?`);
  return file;
}

/**
 * Before anything is sent, when the new secret is to be printed: --fields that leaves out `token` would print the
 * record without the one value the service shows only once. `elsewhere`: how else to keep it.
 */
export function assertSecretPrinted(ctx: Context, elsewhere: string): void {
  const fields = ctx.globals.fields;
  if (!fields || fields.includes('token')) return;
  throw new UsageError('--fields leaves out token, and the new token is shown only this once: it would be lost; nothing was sent', `add token to --fields, or ${elsewhere}`);
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
