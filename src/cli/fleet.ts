import { Writable } from 'node:stream';
import { ListResult } from '../api/paginate.js';
import type { CommandDef, Context, Prompter } from './command.js';
import { Aborted, ApiError, CliError, DryRunComplete, ExitCode, UsageError } from '../errors.js';
import { oneLine } from '../output/formats.js';
import { Io, OutputState } from '../output/io.js';
import { ResultWithExit, TextResult, WrittenResult } from '../output/result.js';
import { orderedPool } from '../fleet/pool.js';
import { DEFAULT_CONCURRENCY } from './fleet-options.js';
import { fleetSelected, selectProjects, type FleetProject, type FleetRun, type FleetSelection } from '../fleet/select.js';
import { plural } from '../parse.js';
import { emptyShardLine, resolveShard, startBudget, takeShard, writeFailedTo } from '../fleet/shard.js';
import { Progress } from '../fleet/progress.js';
import { checkWritableTarget, writeFileAtomically } from '../files.js';

/**
 * Any command that works on one project (it has --project and no --group of its own) also takes a fleet selector
 * instead: `forgectl badges list --group acme --recursive`. The command runs once per project, `--concurrency` at a
 * time through one shared rate limit; its results come out as one row per record (or per project) with the
 * project's path and outcome in front, in the fleet's order however the work interleaves; a summary goes to
 * stderr, and the run exits 9 when some project failed.
 */

type Row = Record<string, unknown>;

/** What one project's run gave: its rows, what it said on stderr, its --dry-run requests. */
interface ProjectRun {
  rows: Row[];
  attention: boolean;
  stderr: string;
  dryRun: string;
}

/** An error that ends the whole fleet run rather than one project's part: bad input, no credentials, a refusal. */
function endsTheFleet(error: unknown): boolean {
  if (error instanceof Aborted || error instanceof UsageError) return true;
  if (error instanceof ApiError) return error.status === 401;
  return error instanceof CliError && error.exitCode === ExitCode.config;
}

/** Text written to a buffer (a project's stderr, flushed in the fleet's order). */
class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

export async function runFleet(def: CommandDef, opts: Record<string, unknown> & FleetSelection & Partial<FleetRun>, ctx: Context, commandPath: string): Promise<unknown> {
  if (!fleetSelected(opts)) throw new Error('runFleet without a fleet selector');
  const started = Date.now();
  const shard = resolveShard(opts, ctx.env);
  if (opts.failedTo !== undefined) checkWritableTarget(opts.failedTo);
  const selected = await selectProjects(ctx, opts);
  const projects = takeShard(selected, (project) => project.path, shard, (line) => ctx.io.note(line));
  if (!projects.length) {
    if (opts.failedTo !== undefined) writeFailedTo(opts.failedTo, [], writeFileAtomically);
    if (shard && selected.length) ctx.io.note(emptyShardLine(shard));
    else {
      // Only the group's own projects were looked at: say where the others are.
      const subgroups = opts.projectsFile === undefined && !opts.recursive;
      ctx.io.note(`no projects selected${subgroups ? `: only the projects of ${ctx.group(opts.group)} itself were looked at; --recursive adds those of its subgroups` : ''}`);
    }
    return [];
  }
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const budget = startBudget(ctx.rateGate, concurrency, opts.rateLimit, shard);
  if (budget) ctx.io.note(budget);
  // A spinner at a terminal ("push-rule set 3/20 projects…"); interrupted, the run says which projects were done.
  const progress = new Progress<FleetProject>(ctx.io, { verb: commandPath, noun: 'project' }, (project) => project.path);
  ctx.io.state.interruptReport = () => progress.report();
  const shared = sharedParts(ctx, projects, opts.projectsFile === '-', progress);
  let stop = false;
  const runOne = async (project: FleetProject): Promise<ProjectRun> => {
    const stderr = new TextSink();
    let dryRun = '';
    const projectCtx = projectContext(ctx, project, shared, stderr, (text) => (dryRun += text));
    progress.start(project);
    try {
      const returned = await def.run({ ...opts, project: project.path }, projectCtx);
      const { rows, attention } = await rowsOf(returned, commandPath, stderr);
      return { rows, attention, stderr: stderr.text, dryRun };
    } catch (error) {
      if (error instanceof DryRunComplete) return { rows: [], attention: false, stderr: stderr.text, dryRun };
      if (endsTheFleet(error) || !opts.continueOnError) stop = true;
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { fleetStderr: stderr.text });
    } finally {
      progress.finish(project);
    }
  };

  const summary = { ok: 0, failed: [] as string[], skipped: 0, attention: 0, notStarted: [] as string[] };
  const result = new ResultWithExit(undefined, ExitCode.ok);
  const shape: { keys?: string[] } = { keys: def.columns };
  async function* rows(): AsyncGenerator<Row> {
    await progress.begin(projects);
    try {
      yield* runAll();
    } finally {
      progress.stop();
    }
  }
  async function* runAll(): AsyncGenerator<Row> {
    const outcomes = orderedPool(projects, concurrency, runOne, { stop: () => stop });
    // Rows without records of their own (failures, commands that return nothing) get the columns of the first record.
    const held: Row[] = [];
    const emit = function* (row: Row): Generator<Row> {
      if (!shape.keys && row.outcome === 'ok' && Object.keys(row).length > 3) shape.keys = Object.keys(row).slice(2, -1);
      if (!shape.keys) {
        held.push(row);
        return;
      }
      for (const pending of held.splice(0)) yield pad(pending, shape.keys);
      yield pad(row, shape.keys);
    };
    for await (const outcome of outcomes) {
      const path = outcome.item.path;
      if (outcome.status === 'skipped') {
        summary.skipped++;
        summary.notStarted.push(path);
        yield* emit({ project: path, outcome: 'skipped', error: 'not started: an earlier project failed (--continue-on-error runs them all)' });
        continue;
      }
      if (outcome.status === 'failed') {
        const error = outcome.error as Error & { fleetStderr?: string };
        if (endsTheFleet(error)) {
          ctx.io.writeErr(prefix(path, error.fleetStderr ?? ''));
          // The projects under way end first (no more start): no request of this run is left in flight after it.
          while (!(await outcomes.next()).done);
          throw error;
        }
        summary.failed.push(path);
        const message = error instanceof CliError ? error.message + (error instanceof ApiError ? ` (${error.method} ${error.path} → ${error.status})` : '') : `internal error: ${error.message}`;
        ctx.io.writeErr(prefix(path, error.fleetStderr ?? '') + `${path}: error: ${oneLine(message)}\n`);
        yield* emit({ project: path, outcome: 'failed', error: oneLine(message) });
        continue;
      }
      const run = outcome.value;
      summary.ok++;
      if (run.attention) summary.attention++;
      if (run.stderr) ctx.io.writeErr(prefix(path, run.stderr));
      if (run.dryRun) await ctx.io.out(run.dryRun);
      if (!run.rows.length && !run.dryRun) yield* emit({ project: path, outcome: 'ok', error: null });
      for (const record of run.rows) {
        const row: Row = { project: path, outcome: 'ok' };
        for (const [key, value] of Object.entries(record)) if (!(key in row) && key !== 'error') row[key] = value;
        row.error = null;
        yield* emit(row);
      }
    }
    for (const pending of held.splice(0)) yield pad(pending, shape.keys ?? []);
    progress.stop();
    if (opts.failedTo !== undefined) writeFailedTo(opts.failedTo, [...summary.failed, ...summary.notStarted], writeFileAtomically);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const gate = ctx.rateGate.summary();
    const parts = [`${summary.ok} ok`, summary.failed.length ? `${summary.failed.length} failed` : '', summary.skipped ? `${summary.skipped} not started` : ''].filter(Boolean);
    const line = `${plural(projects.length, 'project')}: ${parts.join(', ')} in ${seconds} s at concurrency ${concurrency}${gate ? `; ${gate}` : ''}`;
    if (summary.failed.length || summary.skipped) {
      result.exitCode = ExitCode.attention;
      const named = summary.failed.slice(0, 5).join(', ') + (summary.failed.length > 5 ? `, … (${summary.failed.length - 5} more)` : '');
      result.message = `attention: ${line}${summary.failed.length ? ` — failed: ${named}` : ''}`;
    } else {
      if (summary.attention) result.exitCode = ExitCode.attention;
      // Written after the output (a table at a terminal comes whole, once every project is done).
      if (!ctx.io.options.quiet) result.message = line;
    }
  }
  return Object.assign(result, { result: rows() });
}

/** A project's stderr lines, each with its path in front. */
const prefix = (path: string, text: string): string => text.split('\n').filter(Boolean).map((line) => `${path}: ${line}\n`).join('');

/** Every row with the same keys in the same order: project, outcome, the record's, error. */
function pad(row: Row, keys: string[]): Row {
  const padded: Row = { project: row.project, outcome: row.outcome };
  for (const key of keys) padded[key] = row[key] ?? null;
  padded.error = row.error ?? null;
  return padded;
}

/** A project run's records: a list's (read to the end here), a record, or none. */
async function rowsOf(returned: unknown, commandPath: string, stderr: TextSink): Promise<{ rows: Row[]; attention: boolean }> {
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

interface Shared {
  /** `shown` writes out what the asking project said so far (its preview), before the question. */
  confirm(question: string, asking: string, shown: () => void): Promise<void>;
  readStdin(): Promise<Buffer>;
  prompt: Prompter;
}

/** What the projects of one run share: one confirmation for all, stdin read once, a secret asked for once. */
function sharedParts(ctx: Context, projects: FleetProject[], stdinTaken: boolean, progress: Progress<FleetProject>): Shared {
  let answer: Promise<void> | undefined;
  let stdin: Promise<Buffer> | undefined;
  const secrets = new Map<string, Promise<string>>();
  return {
    prompt: {
      input: (message, options) => ctx.prompt.input(message, options),
      confirm: (message, defaultValue) => ctx.prompt.confirm(message, defaultValue),
      password(message) {
        if (!secrets.has(message)) secrets.set(message, ctx.prompt.password(message));
        return secrets.get(message)!;
      },
    },
    confirm(question, asking, shown) {
      if (answer) return answer;
      // At a terminal the question waits for an answer: what the project said so far is its preview, shown first,
      // with the spinner out of the way until it is answered.
      const asks = ctx.io.interactive && !ctx.globals.yes && !ctx.globals.dryRun;
      if (asks) {
        progress.stop();
        shown();
      }
      const others = projects.filter((project) => project.path !== asking).map((project) => project.path);
      const named = others.length > 5 ? `${others.slice(0, 4).join(', ')}, … (${others.length - 4} more)` : others.join(', ');
      answer = ctx.confirm(others.length ? `${question.replace(/\?$/, '')}, and the same in ${plural(others.length, 'more project')} (${named})?` : question);
      if (asks) answer = answer.then(() => progress.resume());
      return answer;
    },
    readStdin() {
      if (stdinTaken) return Promise.reject(new UsageError('stdin holds the list of projects (--projects-file -)', 'give the projects in a file instead'));
      stdin ??= ctx.io.readStdinBuffer();
      return stdin;
    },
  };
}

/** The context one project's run sees: the fleet project as --project, its own stderr buffer and dry-run sink. */
function projectContext(parent: Context, project: FleetProject, shared: Shared, stderr: TextSink, printDryRun: (text: string) => void): Context {
  const streams = { stdin: parent.io.streams.stdin, stdout: stderr, stderr };
  const io = new (class extends Io {
    override async readStdin(): Promise<string> {
      return (await shared.readStdin()).toString('utf8');
    }
    override async readStdinBuffer(): Promise<Buffer> {
      return shared.readStdin();
    }
    override get interactive(): boolean {
      return false;
    }
  })(streams, { ...parent.io.options, color: false }, new OutputState());
  const api = parent.forkApi(printDryRun);
  return {
    api,
    io,
    get env() { return parent.env; },
    get globals() { return parent.globals; },
    get format() { return parent.format; },
    get configDir() { return parent.configDir; },
    get paging() { return parent.paging; },
    get rateGate() { return parent.rateGate; },
    get interrupted() { return parent.interrupted; },
    get prompt() { return shared.prompt; },
    now: () => parent.now(),
    sleep: (ms) => parent.sleep(ms),
    execute: (invocation, streams) => parent.execute(invocation, streams),
    get commands() { return parent.commands; },
    connection: () => parent.connection(),
    apiFor: (connection, options) => parent.apiFor(connection, options),
    apiWithToken: (token) => parent.apiWithToken(token),
    forkApi: (print) => parent.forkApi(print),
    readConfig: () => parent.readConfig(),
    confirm: (question) => shared.confirm(question, project.path, () => {
      parent.io.writeErr(prefix(project.path, stderr.text));
      stderr.text = '';
    }),
    project: () => project.path,
    group: (value) => parent.group(value),
    defaults: () => ({ ...parent.defaults(), project: project.path }),
  };
}
