import { UsageError } from '../errors.js';
import { checkWritableTarget } from '../files.js';
import { isSpecialFile } from '../write.js';
import type { Io } from '../output/io.js';

/** Refuses (exit 2) to write binary data to a terminal: checked before the request is sent. */
export function assertBinaryTarget(io: Io, outputFile: string | undefined): void {
  if ((!outputFile || outputFile === '-') && io.stdoutIsTTY) {
    throw new UsageError('refusing to write binary data to the terminal', 'give --output-file PATH, or redirect stdout');
  }
}

/**
 * Checks where a download will go before the request is sent: never a terminal; --output-file in a folder that
 * exists; an existing file replaced only when confirmed (a prompt on a terminal, --yes otherwise).
 */
export async function checkDownloadTarget(ctx: { io: Io; confirm(question: string): Promise<void> }, outputFile: string | undefined): Promise<void> {
  if (outputFile === '') throw new UsageError('--output-file needs a file name', 'give - for stdout');
  assertBinaryTarget(ctx.io, outputFile);
  // A device or FIFO (/dev/null, a named pipe) is written to, not replaced: nothing to confirm.
  if (outputFile && outputFile !== '-' && checkWritableTarget(outputFile).exists && !isSpecialFile(outputFile)) await ctx.confirm(`Overwrite ${outputFile}?`);
}
