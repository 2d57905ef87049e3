import { readFileSync } from 'node:fs';
import { characterCount, MAX_NOTE_CHARS } from '../../api/review.js';
import type { Context, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseInteger } from '../../parse.js';

/** Options and input checks shared by the review commands of a merge request (merge trains, approvals, notes, draft notes). */

export const mrOption: OptionDef = {
  flags: '--mr <iid>',
  description: 'merge request IID (the number shown as !IID)',
  parse: parseInteger('--mr', 1),
  required: true,
};

/** A full commit SHA (SHA-1 or SHA-256): the service compares it with the HEAD as a string, so a prefix never matches. */
export function parseFullSha(flag: string) {
  return (value: string): string => {
    if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(value)) {
      throw new UsageError(`${flag} must be a full commit SHA (40 hexadecimal characters), got "${value}"`);
    }
    return value.toLowerCase();
  };
}

/**
 * Text given inline (`--body TEXT`) or read from a file (`--body-file FILE`, `-` for stdin), checked against the
 * service's length limit before anything is sent. Returns undefined when neither flag was given.
 */
export async function readTextOption(
  ctx: Context,
  flag: string,
  inline: string | undefined,
  file: string | undefined,
  maxChars = MAX_NOTE_CHARS,
): Promise<string | undefined> {
  if (inline !== undefined && file !== undefined) throw new UsageError(`give either --${flag} or --${flag}-file, not both`);
  let text = inline;
  if (file !== undefined) {
    try {
      text = file === '-' ? await ctx.io.readStdin() : readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --${flag}-file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (text === undefined) return undefined;
  if (!text.trim()) throw new UsageError(`the ${flag} is empty`);
  const chars = characterCount(text);
  if (chars > maxChars) {
    throw new UsageError(`the ${flag} has ${chars.toLocaleString('en-US')} characters; the service accepts at most ${maxChars.toLocaleString('en-US')}`);
  }
  return text;
}
