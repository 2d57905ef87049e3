import { Writable } from 'node:stream';
import { ListResult } from '../api/paginate.js';
import { Aborted, ApiError, CliError, ExitCode, UsageError } from '../errors.js';
import { writeFileAtomically } from '../files.js';
import type { RateGate } from '../http/rate-gate.js';
import { oneLine } from '../output/formats.js';
import type { Io } from '../output/io.js';
import { ResultWithExit, TextResult, WrittenResult } from '../output/result.js';
import { plural } from '../parse.js';
import { orderedPool, type Outcome } from './pool.js';
import type { Progress } from './progress.js';
import type { FleetProject } from './select.js';
import { reportOnInterrupt, writeFailedTo } from './shard.js';

/**
 * A fleet run's engine: the projects worked on `concurrency` at a time (each by `runOne`, which the command
 * framework gives), their results as one row per record (or per project) with the project's path and outcome in
 * front, in the fleet's order however the work interleaves; each project's stderr after its path; a summary line;
 * exit 9 when some project failed; and the failed ones written to --failed-to.
 */

type Row = Record<string, unknown>;

/** What one project's run gave: its rows, what it said on stderr, its --dry-run requests. */
export interface ProjectRun {
  rows: Row[];
  attention: boolean;
  stderr: string;
  dryRun: string;
}

/** The projects of a run and how each is worked on. */
export interface FleetWork {
  projects: FleetProject[];
  concurrency: number;
  runOne(project: FleetProject): Promise<ProjectRun>;
  /** Projects not started yet are skipped once this says so (the first failure without --continue-on-error). */
  stop(): boolean;
  /** The command's own columns, if it names them (else those of the first record). */
  columns?: string[];
  failedTo?: string;
  progress: Progress<FleetProject>;
  /** When the run started (Date.now()), for the summary. */
  started: number;
  /**
   * The hints of the projects that failed alike, said once after the summary: the role or tier a 403 says the
   * command needs, the list of what exists for a 404. Given the errors and the paths of the projects, in order.
   */
  failuresHint?(errors: unknown[], paths: string[]): Promise<string | undefined>;
}

/** An error that ends the whole fleet run rather than one project's part: bad input, no credentials, a refusal. */
export function endsTheFleet(error: unknown): boolean {
  if (error instanceof Aborted || error instanceof UsageError) return true;
  if (error instanceof ApiError) return error.status === 401;
  return error instanceof CliError && error.exitCode === ExitCode.config;
}

/** Text written to a buffer (a project's stderr, flushed in the fleet's order). */
export class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** A project's stderr lines, each with its path in front. */
export const prefix = (path: string, text: string): string => text.split('\n').filter(Boolean).map((line) => `${path}: ${line}\n`).join('');

/** The run's rows, produced as they are read; the result's exit code and summary line are set once they are all read. */
export function fleetResult(work: FleetWork, io: Io, rateGate: RateGate): ResultWithExit {
  const result = new ResultWithExit(undefined, ExitCode.ok);
  // Interrupted, the run says which projects were done; --failed-to gets every one that did not succeed.
  const succeeded = new Set<FleetProject>();
  io.state.interruptReport = reportOnInterrupt(work.failedTo, () => work.progress.report(), () => work.projects.filter((project) => !succeeded.has(project)).map((project) => project.path));
  const runOne = async (project: FleetProject): Promise<ProjectRun> => {
    const run = await work.runOne(project);
    succeeded.add(project);
    return run;
  };
  async function* rows(): AsyncGenerator<Row> {
    await work.progress.begin(work.projects);
    try {
      yield* runAll({ ...work, runOne }, io, rateGate, result);
    } finally {
      work.progress.stop();
    }
  }
  return Object.assign(result, { result: rows() });
}

async function* runAll(work: FleetWork, io: Io, rateGate: RateGate, result: ResultWithExit): AsyncGenerator<Row> {
  const outcomes = orderedPool(work.projects, work.concurrency, (project) => work.runOne(project), { stop: () => work.stop() });
  const table = new SameColumns(work.columns);
  const summary = new Summary();
  for await (const outcome of outcomes) {
    if (outcome.status === 'failed' && endsTheFleet(outcome.error)) {
      io.writeErr(prefix(outcome.item.path, (outcome.error as { fleetStderr?: string }).fleetStderr ?? ''));
      // The projects under way end first (no more start): no request of this run is left in flight after it.
      while (!(await outcomes.next()).done);
      throw outcome.error;
    }
    for (const row of await summary.take(outcome, io)) yield* table.row(row);
  }
  yield* table.rest();
  work.progress.stop();
  if (work.failedTo !== undefined) writeFailedTo(work.failedTo, [...summary.failed, ...summary.notStarted], writeFileAtomically);
  summary.finish(result, work, io, rateGate);
  const hint = await work.failuresHint?.(summary.errors, summary.failed);
  if (hint) result.message = [result.message, hint].filter(Boolean).join('\n');
}

/** Every row with the same keys in the same order: project, outcome, the record's, error. */
class SameColumns {
  /** Rows without records of their own (failures, commands that return nothing), until the first record's columns are known. */
  private readonly held: Row[] = [];

  constructor(private keys: string[] | undefined) {}

  *row(row: Row): Generator<Row> {
    if (!this.keys && row.outcome === 'ok' && Object.keys(row).length > 3) this.keys = Object.keys(row).slice(2, -1);
    if (!this.keys) {
      this.held.push(row);
      return;
    }
    for (const pending of this.held.splice(0)) yield pad(pending, this.keys);
    yield pad(row, this.keys);
  }

  *rest(): Generator<Row> {
    for (const pending of this.held.splice(0)) yield pad(pending, this.keys ?? []);
  }
}

function pad(row: Row, keys: string[]): Row {
  const padded: Row = { project: row.project, outcome: row.outcome };
  for (const key of keys) padded[key] = row[key] ?? null;
  padded.error = row.error ?? null;
  return padded;
}

/** How the projects went, counted as their outcomes come. */
class Summary {
  ok = 0;
  attention = 0;
  readonly failed: string[] = [];
  /** The errors of the projects that failed, in their order. */
  readonly errors: unknown[] = [];
  readonly notStarted: string[] = [];

  /** Counts one project's outcome, writes what it said (stderr, --dry-run requests), and gives its rows. */
  async take(outcome: Outcome<FleetProject, ProjectRun>, io: Io): Promise<Row[]> {
    const path = outcome.item.path;
    if (outcome.status === 'skipped') {
      this.notStarted.push(path);
      return [{ project: path, outcome: 'skipped', error: 'not started: an earlier project failed (--continue-on-error runs them all)' }];
    }
    if (outcome.status === 'failed') {
      const error = outcome.error as Error & { fleetStderr?: string };
      this.failed.push(path);
      this.errors.push(error);
      const message = error instanceof CliError ? error.message + (error instanceof ApiError ? ` (${error.method} ${error.path} → ${error.status})` : '') : `internal error: ${error.message}`;
      io.writeErr(prefix(path, error.fleetStderr ?? '') + `${path}: error: ${oneLine(message)}\n`);
      return [{ project: path, outcome: 'failed', error: oneLine(message) }];
    }
    const run = outcome.value;
    this.ok++;
    if (run.attention) this.attention++;
    if (run.stderr) io.writeErr(prefix(path, run.stderr));
    if (run.dryRun) await io.out(run.dryRun);
    if (!run.rows.length && !run.dryRun) return [{ project: path, outcome: 'ok', error: null }];
    return run.rows.map((record) => {
      const row: Row = { project: path, outcome: 'ok' };
      for (const [key, value] of Object.entries(record)) if (!(key in row) && key !== 'error') row[key] = value;
      row.error = null;
      return row;
    });
  }

  /** The summary line (on stderr, after the output) and the exit code: 9 when a project failed or was not started. */
  finish(result: ResultWithExit, work: FleetWork, io: Io, rateGate: RateGate): void {
    const seconds = ((Date.now() - work.started) / 1000).toFixed(1);
    const gate = rateGate.summary();
    const parts = [`${this.ok} ok`, this.failed.length ? `${this.failed.length} failed` : '', this.notStarted.length ? `${this.notStarted.length} not started` : ''].filter(Boolean);
    const line = `${plural(work.projects.length, 'project')}: ${parts.join(', ')} in ${seconds} s at concurrency ${work.concurrency}${gate ? `; ${gate}` : ''}`;
    if (this.failed.length || this.notStarted.length) {
      result.exitCode = ExitCode.attention;
      result.message = `attention: ${line}${this.failed.length ? ` — failed: ${namedFew(this.failed)}` : ''}`;
    } else {
      if (this.attention) result.exitCode = ExitCode.attention;
      // Written after the output (a table at a terminal comes whole, once every project is done).
      if (!io.options.quiet) result.message = line;
    }
  }
}

/** A project run's records: a list's (read to the end here), a record, or none. */
export async function rowsOf(returned: unknown, commandPath: string, stderr: Writable): Promise<{ rows: Row[]; attention: boolean }> {
  let attention = false;
  if (returned instanceof ResultWithExit) {
    attention = returned.exitCode === ExitCode.attention;
    if (returned.message) stderr.write(`${returned.message}\n`);
    returned = returned.result;
  }
  if (returned instanceof TextResult || returned instanceof WrittenResult) {
    throw new UsageError(`${commandPath} hands over raw content, which cannot be combined across projects`, 'run it once per project with --project');
  }
  if (returned === undefined || returned === null) return { rows: [], attention };
  if (returned instanceof ListResult) {
    const rows: Row[] = [];
    for await (const record of returned) rows.push(record as Row);
    if (returned.notice) stderr.write(`${returned.notice}\n`);
    return { rows, attention };
  }
  if (Array.isArray(returned)) return { rows: returned as Row[], attention };
  if (typeof returned === 'object' && Symbol.asyncIterator in returned) {
    const rows: Row[] = [];
    for await (const record of returned as AsyncIterable<Row>) rows.push(record);
    return { rows, attention };
  }
  return { rows: [returned as Row], attention };
}

/** The first five of a list of paths, and how many more: "a, b, c, d, e, … (7 more)". */
export function namedFew(paths: string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, … (${paths.length - 5} more)` : '');
}
