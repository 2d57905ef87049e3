import type { CommandDef, Context, Prompter } from './command.js';
import { DryRunComplete, UsageError } from '../errors.js';
import { checkWritableTarget, writeFileAtomically } from '../files.js';
import { Io, OutputState } from '../output/io.js';
import { DEFAULT_CONCURRENCY } from './fleet-options.js';
import { Progress } from '../fleet/progress.js';
import { endsTheFleet, fleetResult, prefix, rowsOf, TextSink, type ProjectRun } from '../fleet/run.js';
import { fleetSelected, selectProjects, type FleetProject, type FleetRun, type FleetSelection } from '../fleet/select.js';
import { emptyShardLine, resolveShard, startBudget, takeShard, writeFailedTo, type Shard } from '../fleet/shard.js';
import { plural } from '../parse.js';
import { isRecordNotFound, listCommand } from './not-found.js';
import { refusalsHint } from './refusal.js';

/**
 * Any command that works on one project (it has --project and no --group of its own) also takes a fleet selector
 * instead: `forgectl badges list --group acme --recursive`. The command runs once per project, `--concurrency` at a
 * time through one shared rate limit (the engine, src/fleet/run.ts, gathers the results); here each project's run
 * gets a context of its own: the project as --project, its stderr held back, one confirmation and one read of stdin
 * for them all.
 */

export async function runFleet(def: CommandDef, opts: Record<string, unknown> & FleetSelection & Partial<FleetRun>, ctx: Context, commandPath: string): Promise<unknown> {
  if (!fleetSelected(opts)) throw new Error('runFleet without a fleet selector');
  const started = Date.now();
  const shard = resolveShard(opts, ctx.env);
  if (opts.failedTo !== undefined) checkWritableTarget(opts.failedTo);
  const selected = await selectProjects(ctx, opts);
  const projects = takeShard(selected, (project) => project.path, shard, (line) => ctx.io.note(line));
  if (!projects.length) return noProjects(ctx, opts, shard && selected.length ? shard : undefined);
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const budget = startBudget(ctx.rateGate, concurrency, opts.rateLimit, shard);
  if (budget) ctx.io.note(budget);
  // A spinner at a terminal ("push-rule set 3/20 projects…"); interrupted, the run says which projects were done.
  const progress = new Progress<FleetProject>(ctx.io, { verb: commandPath, noun: 'project' }, (project) => project.path);
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
  // 500 projects refused alike, or answering 404 alike, get the hint the command gives of one, once.
  const command = { path: commandPath, description: def.description };
  const hint = async (errors: unknown[], paths: string[]) =>
    [await refusalsHint(errors, 'project', () => command, () => ctx.api), notFoundHint(def, commandPath, opts, errors, paths, ctx)].filter(Boolean).join('\n') || undefined;
  return fleetResult({ projects, concurrency, runOne, stop: () => stop, columns: def.columns, failedTo: opts.failedTo, progress, started, failuresHint: hint }, ctx.io, ctx.rateGate);
}

/** The fleet's own selector as placement options: a hint's list runs over the same projects. */
const SELECTOR_PLACEMENT = [
  { flag: '--group', key: 'group' },
  { flag: '--recursive', key: 'recursive' },
  { flag: '--include-archived', key: 'includeArchived' },
  { flag: '--match', key: 'match' },
  { flag: '--exclude', key: 'exclude' },
  { flag: '--projects-file', key: 'projectsFile' },
];

/**
 * Projects whose record answered 404 get the hint a single command gives: the list of what exists there. One such
 * project is named as --project; more are listed over the fleet's own selector (stdin, read already, cannot be).
 */
function notFoundHint(def: CommandDef, commandPath: string, opts: Record<string, unknown>, errors: unknown[], paths: string[], ctx: Context): string | undefined {
  if (!def.record) return undefined;
  const missing = paths.filter((_, index) => isRecordNotFound(errors[index]));
  if (!missing.length) return undefined;
  const own = def.record.placement.filter(({ key }) => key !== 'project');
  const project = def.record.placement.filter(({ key }) => key === 'project');
  const listed = (list: string) => ctx.commands.manifest.some((candidate) => candidate.path === list);
  const overFleet = missing.length > 1 && opts.projectsFile !== '-';
  const list = overFleet
    ? listCommand(commandPath, [...SELECTOR_PLACEMENT, ...own], opts, listed)
    : listCommand(commandPath, [...project, ...own], { ...opts, project: missing[0] }, listed);
  if (!list) return undefined;
  const what = overFleet ? `their ${def.record.nouns}` : `its ${def.record.nouns}${missing.length > 1 ? ` (${missing[0]}, the first of them)` : ''}`;
  return `hint: ${plural(missing.length, 'project')} answered 404 Not Found: ${list} lists ${what}`;
}

/** Nothing selected: --failed-to's file lists none, and a note says why (an empty shard, or where the others are). */
function noProjects(ctx: Context, opts: FleetSelection & Partial<FleetRun>, emptyShard: Shard | undefined): [] {
  if (opts.failedTo !== undefined) writeFailedTo(opts.failedTo, [], writeFileAtomically);
  if (emptyShard) ctx.io.note(emptyShardLine(emptyShard));
  else {
    // Only the group's own projects were looked at: say where the others are.
    const subgroups = opts.projectsFile === undefined && !opts.recursive;
    ctx.io.note(`no projects selected${subgroups ? `: only the projects of ${ctx.group(opts.group)} itself were looked at; --recursive adds those of its subgroups` : ''}`);
  }
  return [];
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
      answer = ctx.confirm(others.length ? forOthersToo(question, `${plural(others.length, 'more project')} (${named})`) : question);
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

/**
 * The asking project's question, widened to the others: it names only what that project read (its members, its
 * branches), so the others are named as not read yet, never as holding the same. "Remove bob (developer) from
 * project acme/api, and run the same command in 2 more projects (acme/nope, acme/web), not read yet? It also …"
 */
function forOthersToo(question: string, others: string): string {
  const end = question.lastIndexOf('?');
  const [asked, rest] = end < 0 ? [question, ''] : [question.slice(0, end), question.slice(end + 1)];
  return `${asked}, and run the same command in ${others}, not read yet?${rest}`;
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
    inFleet: true,
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
