import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { writeFileAtomically } from '../write.js';
import { assertWritableDir } from './tokens/rotation.js';
import { warnStoreNow, withoutSecret } from './tokens/shared.js';

/**
 * A new secret the service shows once (a deploy token, a runner's authentication token): printed once, or with
 * --output-file written there (mode 0600, atomically) and not printed.
 */

/** Before anything is created: the folder of --output-file takes new files, and an existing file is replaced only when confirmed. */
export async function secretFileFor(ctx: Context, outputFile: string | undefined, what: string): Promise<string | undefined> {
  if (outputFile === undefined) return undefined;
  const file = resolve(outputFile);
  assertWritableDir(dirname(file), '--output-file');
  if (existsSync(file)) await ctx.confirm(`Replace ${file} with the new ${what}?`);
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
