import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { Context } from '../cli/command.js';
import { checkWritableTarget, fileProblem } from '../cli/files.js';
import type { Io } from './io.js';
import type { DownloadResult } from './result.js';

/** Refuses (exit 2) to write binary data to a terminal: checked before the request is sent. */
export function assertBinaryTarget(io: Io, outputFile: string | undefined): void {
  if (!outputFile && io.stdoutIsTTY) {
    throw new UsageError('refusing to write binary data to the terminal', 'give --output-file PATH, or redirect stdout');
  }
}

/**
 * Checks where a download will go before the request is sent: never a terminal; --output-file in a folder that
 * exists; an existing file replaced only when confirmed (a prompt on a terminal, --yes otherwise).
 */
export async function checkDownloadTarget(ctx: Pick<Context, 'io' | 'confirm'>, outputFile: string | undefined): Promise<void> {
  assertBinaryTarget(ctx.io, outputFile);
  if (outputFile && checkWritableTarget(outputFile).exists) await ctx.confirm(`Overwrite ${outputFile}?`);
}

/**
 * Streams a download to --output-file through a temporary file in the same folder, fsynced and renamed into
 * place only when complete (and, when a checksum is known, verified); otherwise to stdout.
 */
export async function writeDownload(download: DownloadResult, io: Io): Promise<void> {
  const { outputFile, size, sha256 } = download.options;
  assertBinaryTarget(io, outputFile);
  const hash = createHash('sha256');
  const progress = outputFile && io.stderrIsTTY && !io.options.quiet ? await progressBar(io, size) : undefined;
  if (!outputFile) {
    for await (const chunk of download.body) {
      hash.update(chunk);
      await new Promise<void>((resolve, reject) => io.streams.stdout.write(chunk, (err) => (err ? reject(err) : resolve())));
    }
    verify(hash, sha256);
    return;
  }
  const temp = join(dirname(outputFile), `.${basename(outputFile)}.${process.pid}.part`);
  let fd: number;
  try {
    fd = openSync(temp, 'w', 0o600);
  } catch (error) {
    throw new UsageError(`cannot write ${outputFile}: ${fileProblem(error)}`);
  }
  let received = 0;
  try {
    for await (const chunk of download.body) {
      hash.update(chunk);
      writeSync(fd, chunk);
      received += chunk.length;
      progress?.(received);
    }
    fsyncSync(fd);
    closeSync(fd);
    verify(hash, sha256);
    renameSync(temp, outputFile);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw error;
  } finally {
    progress?.(received, true);
  }
  io.note(`wrote ${received.toLocaleString('en-US')} bytes to ${outputFile}`);
}

function verify(hash: ReturnType<typeof createHash>, expected: string | undefined): void {
  if (!expected) return;
  const actual = hash.digest('hex');
  if (actual !== expected.toLowerCase()) {
    throw new CliError(`checksum mismatch: expected sha256 ${expected}, got ${actual}; nothing was written`, ExitCode.server);
  }
}

async function progressBar(io: Io, size: number | undefined): Promise<(received: number, done?: boolean) => void> {
  let last = 0;
  return (received, done) => {
    const now = Date.now();
    if (!done && now - last < 100) return;
    last = now;
    const pct = size ? ` ${Math.floor((received / size) * 100)}%` : '';
    io.streams.stderr.write(`\r${(received / 1024).toFixed(0)} KiB${pct}${done ? '\n' : ''}`);
  };
}
