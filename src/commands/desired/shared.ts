import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context, OptionDef } from '../../cli/command.js';
import { checkWritableTarget, readLocalFile } from '../../files.js';
import { UsageError } from '../../errors.js';
import { collect } from '../../parse.js';
import { DesiredFileError, parseDesiredState, type DesiredState } from '../../desired/file.js';
import { concurrencyOption, DEFAULT_CONCURRENCY, failedToOption, shardOptions } from '../../cli/fleet-options.js';
import type { FleetRun } from '../../fleet/select.js';
import { reportOnInterrupt, resolveShard } from '../../fleet/shard.js';
import { makePlan, type OwnerFailure, type Plan, type PlanOptions } from '../../desired/plan.js';
import { ownerLabel, type Owner, type SectionIo } from '../../desired/model.js';
import { Progress } from '../../fleet/progress.js';

/** What plan, apply, export and validate share: the file option, targets, and reading the file. */

export const fileOption: OptionDef = { flags: '-f, --file <file>', description: 'the desired-state file (YAML; - for stdin)', required: true, localFile: true };

export const targetOptions: OptionDef[] = [
  { flags: '--target <glob>', description: 'the projects "*" means: group/** or a full path (repeatable; default: the file\'s target, else its scopes)', parse: collect },
  { flags: '--exclude <glob>', description: 'leave out projects and groups whose full path matches (repeatable)', parse: collect },
  { flags: '--projects-file <file>', description: 'only the projects and groups this file lists (one path a line, as --failed-to writes them; - for stdin)', localFile: true },
  concurrencyOption,
  ...shardOptions,
  failedToOption,
];

export interface TargetFlags extends Pick<FleetRun, 'shard' | 'shardTotal' | 'rateLimit' | 'failedTo'> {
  target?: string[];
  exclude?: string[];
  concurrency?: number;
  projectsFile?: string;
}

export const concurrencyOf = (opts: TargetFlags): number => opts.concurrency ?? DEFAULT_CONCURRENCY;

/** What plan and apply compare, from their flags and the environment (the shard of a parallel job). */
export function planOptionsOf(ctx: Context, opts: TargetFlags): PlanOptions {
  if (opts.failedTo !== undefined) checkWritableTarget(opts.failedTo);
  return {
    targets: opts.target ?? [],
    exclude: opts.exclude ?? [],
    concurrency: concurrencyOf(opts),
    shard: resolveShard(opts, ctx.env),
    projectsFile: opts.projectsFile,
    rateLimit: opts.rateLimit,
  };
}

/** The projects and groups to write to --failed-to: those that could not be read or changed. */
export function failedPaths(owners: Array<{ level: string; path: string }>): string[] {
  return [...new Set(owners.filter((owner) => owner.level !== 'instance').map((owner) => owner.path))];
}

/** The text of the file (or stdin). */
export async function readText(ctx: Context, file: string): Promise<string> {
  if (file !== '-') {
    const size = statSizeOf(file);
    if (size !== undefined && size > DESIRED_MAX_BYTES) throw tooLarge(file, size);
  }
  const text = file === '-' ? await ctx.io.readStdin() : readLocalFile(file, 'utf8');
  if (Buffer.byteLength(text) > DESIRED_MAX_BYTES) throw tooLarge(file === '-' ? 'stdin' : file, Buffer.byteLength(text));
  return text;
}

/** The largest desired-state file read: beyond it a file is refused at once rather than parsed for minutes. */
export const DESIRED_MAX_BYTES = 8 * 1024 * 1024;

function tooLarge(file: string, size: number): UsageError {
  return new UsageError(
    `${file} is ${(size / 1024 / 1024).toFixed(1)} MiB; a desired-state file may be at most ${DESIRED_MAX_BYTES / 1024 / 1024} MiB`,
    'split it into several files (each with its own target), and plan and apply each',
  );
}

function statSizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
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

/**
 * The plan of a file, with a spinner at a terminal ("planning 7/22 projects…") cleared before anything is shown.
 * Interrupted, it says which projects and groups it compared, and writes to --failed-to those it did not reach and
 * those that could not be read, to plan again with --projects-file.
 */
export async function planShowingProgress(ctx: Context, state: DesiredState, io: SectionIo, options: PlanOptions, failedTo: string | undefined): Promise<Plan> {
  const progress = new Progress<Owner>(ctx.io, { verb: 'planning', noun: 'project' }, ownerLabel);
  const failures: OwnerFailure[] = [];
  const report = reportOnInterrupt(failedTo, () => progress.report(), () => failedPaths([...failures.map((failure) => failure.owner), ...progress.left()]));
  // Before the projects and groups are known there is no list of what is left: --failed-to is not written then.
  ctx.io.state.interruptReport = () => (progress.begun || failedTo === undefined ? report() : [`  nothing was compared yet, so ${failedTo} was not written: run the same command again`]);
  try {
    return await makePlan(ctx, state, io, { ...options, progress, failures });
  } finally {
    progress.stop();
  }
}
