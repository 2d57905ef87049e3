import type { Context, OptionDef } from './command.js';
import { UsageError } from '../errors.js';
import { checkDownloadTarget } from '../download/target.js';
import type { DownloadOptions } from '../download/engine.js';

/** The options every download command has, and the checks made before its request is sent. */

export const downloadOptions: OptionDef[] = [
  { flags: '-O, --output-file <path>', description: 'write to this file (through FILE.part, renamed when complete and verified); - for stdout', localFile: true },
  { flags: '--resume', description: 'continue an interrupted download from FILE.part (Range request)', localFile: true },
  { flags: '--sha256 <hex>', description: 'the sha256 the download must have (exit 8 and nothing written otherwise)', parse: parseSha256 },
];

export const extractOption: OptionDef = { flags: '--extract <dir>', description: 'unpack the archive into this new or empty folder (zip, tar, tar.gz, tar.bz2)', localFile: true };

function parseSha256(value: string): string {
  if (!/^[0-9a-f]{64}$/i.test(value)) throw new UsageError(`--sha256 must be 64 hexadecimal characters, got "${value}"`);
  return value.toLowerCase();
}

export interface DownloadFlags {
  outputFile?: string;
  resume?: boolean;
  sha256?: string;
  extract?: string;
}

/** Checks the target (never a terminal; an existing file only when confirmed; --extract into a new or empty folder). */
export async function prepareDownload(ctx: Pick<Context, 'io' | 'confirm'>, flags: DownloadFlags, extra: Partial<DownloadOptions> = {}, defaultName?: string): Promise<DownloadOptions> {
  if (flags.outputFile === '') throw new UsageError('--output-file needs a file name', 'give - for stdout');
  if (defaultName && flags.outputFile === undefined && !flags.extract && ctx.io.stdoutIsTTY) {
    // At a terminal, without -O: saved under the download's own name in the current folder (as gh and glab do).
    flags = { ...flags, outputFile: defaultName };
    ctx.io.note(`saving to ${defaultName} (give -O PATH for another name, -O - for stdout)`);
  }
  if (flags.resume && (!flags.outputFile || flags.outputFile === '-')) throw new UsageError('--resume needs --output-file: a download to stdout cannot be continued');
  if (flags.extract) {
    const { checkExtractTarget } = await import('../download/engine.js');
    checkExtractTarget(flags.extract);
    if (flags.outputFile && flags.outputFile !== '-') await checkDownloadTarget(ctx, flags.outputFile);
  } else {
    await checkDownloadTarget(ctx, flags.outputFile);
  }
  return {
    outputFile: flags.outputFile === '-' ? undefined : flags.outputFile,
    resume: flags.resume,
    sha256: flags.sha256,
    ...extra,
    extract: flags.extract ? { ...extra.extract, dir: flags.extract } : undefined,
  };
}
