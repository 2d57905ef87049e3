// --jq: the real jq (1.7.1, compiled to WebAssembly by the jq-web package), loaded only when --jq is given.
//
// jq-web runs jq's main() once per call, which compiles the expression again each time (about 2 ms with jq's
// builtins): records are therefore handed over a page at a time (up to 100 records, one JSON text per line), and
// the expression is wrapped so that each record's results, or its error, can be told apart in jq's output:
//
//   (ENV) as $ENV | def env: $ENV; def input: …; def inputs: …; (try (EXPRESSION
//   ) catch {"\u0000forgectl-error": .}), "\u0000forgectl-end"
//
// The expression alone is first compiled with no input at all (jq compiles it, reports its errors, and runs
// nothing): that check is what makes a bad expression exit 2 before any request is sent, with jq's own message.
import loadJqWeb from './jq-engine.cjs';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { escapeC1, visible } from './formats.js';
import type { Io } from './io.js';
import type { JsonAnswer } from './result.js';

const END = '"\\u0000forgectl-end"';
const ERROR_KEY = '{"\\u0000forgectl-error":';
/**
 * Records handed to jq in one call: each call compiles the expression again (2 ms and more), so the records of the
 * pages already received are handed over together, up to this many; a page still on its way is waited for no
 * longer than BATCH_WAIT_MS before what has arrived is filtered and printed.
 */
const BATCH = 1000;
const BATCH_WAIT_MS = 20;

const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
/** `.a`, `.a.b.c`, `.a, .b.c`: paths whose first keys are all the expression can read of a record. */
const PATHS = new RegExp(`^\\s*\\.(${IDENT})(?:\\.${IDENT})*(?:\\s*,\\s*\\.${IDENT}(?:\\.${IDENT})*)*\\s*$`);
/** `{id, name}`: the object of these keys. */
const SHORTHAND = new RegExp(`^\\s*\\{\\s*${IDENT}(?:\\s*,\\s*${IDENT})*\\s*\\}\\s*$`);

/**
 * The top-level keys an expression reads, when it is nothing but paths or `{a, b}` (most scripts' expressions):
 * then jq is handed only those keys of each record — the same expression on less JSON to parse, with the same
 * results and errors (a key a record lacks is lacking in both). Undefined for anything else.
 */
export function keysRead(expression: string): string[] | undefined {
  if (!PATHS.test(expression) && !SHORTHAND.test(expression)) return undefined;
  const keys = SHORTHAND.test(expression)
    ? expression.replace(/[{}\s]/g, '').split(',')
    : expression.split(',').map((path) => path.trim().slice(1).split('.')[0]);
  return [...new Set(keys)];
}

/** jq-web's instance: jq's main() over an in-memory file system. */
interface Engine {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

const loadEngine = (): Promise<Engine> => loadJqWeb();

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Runs jq once: like `printf %s INPUT | jq -c FILTER`. What jq writes to stderr (debug, halt_error) is captured. */
function runJq(engine: Engine, input: string, filter: string, flags: string[] = []): Run {
  // jq-web hands stderr of a successful run to console.warn: it is captured here instead, and returned.
  /* eslint-disable no-console -- jq-web writes a successful run's stderr with console.warn: it is captured here */
  const warn = console.warn;
  let stderr = '';
  console.warn = (...args: unknown[]) => void (stderr = String(args[args.length - 1] ?? ''));
  try {
    return { stdout: engine.raw(input, filter, ['-c', ...flags]) ?? '', stderr, exitCode: 0 };
  } catch (error) {
    // jq's WebAssembly runtime aborts when its memory (2 GB) is used up: a value too large, a recursion without end.
    if (error instanceof WebAssembly.RuntimeError) throw new JqOutOfMemory();
    const failure = error as { exitCode?: number; stderr?: string; message?: string };
    if (typeof failure.exitCode !== 'number') throw error;
    // jq-web's error carries stderr, sometimes twice over ("undefined" + text): the text after jq's exit line.
    const text = (failure.message ?? '').replace(/^Non-zero exit code: \d+\n?/, '');
    return { stdout: '', stderr: text, exitCode: failure.exitCode };
  } finally {
    console.warn = warn;
  }
  /* eslint-enable no-console */
}

/** jq stopped for want of memory: what it printed in that run is lost. */
class JqOutOfMemory extends Error {
  constructor() {
    super('jq ran out of memory (it has 2 GB)');
  }
}

/** The first error jq reported ("jq: error: …"), without jq's prefix and without the text of the line it echoes. */
function firstError(stderr: string): { text: string; line?: number } {
  const first = stderr.split('\n').find((l) => l.startsWith('jq: error')) ?? stderr.split('\n')[0] ?? 'jq failed';
  const where = /^(.*) at <top-level>, line (\d+):?$/.exec(first.replace(/^jq: error: /, ''));
  return where ? { text: where[1], line: Number(where[2]) } : { text: first.replace(/^jq: error: /, '') };
}

/**
 * Where a compile error is, as line and column (jq 1.7 names the line only). A syntax error is found where the
 * shortest beginning of the expression already fails with the same message; a name that is not defined, where the
 * name first appears.
 */
function locate(engine: Engine, expression: string, error: { text: string; line?: number }): { line: number; column: number } | undefined {
  let offset = -1;
  const undefinedName = /^(\$?[A-Za-z_][\w:]*)(?:\/\d+)? is not defined/.exec(error.text);
  if (undefinedName) {
    const name = undefinedName[1].replace(/\$/g, '\\$');
    const match = new RegExp(`(?<![\\w$])${name}(?!\\w)`).exec(expression);
    offset = match ? match.index : -1;
  } else if (error.text.startsWith('syntax error') && expression.length <= 1000) {
    for (let end = 1; end <= expression.length; end++) {
      const run = runJq(engine, '', expression.slice(0, end));
      if (run.exitCode === 3 && firstError(run.stderr).text === error.text) {
        // The character that made the parser fail ends this beginning; an error at the end of the text is after it.
        offset = /unexpected (end of file|\$end)/.test(error.text) ? end : end - 1;
        break;
      }
    }
  }
  if (offset < 0) return undefined;
  const before = expression.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** The process environment (safeEnvironment() takes the secrets out before jq sees it). */
type Env = Readonly<Record<string, string | undefined>>;

/** Variables an expression sees as $ENV and env: the environment less anything that looks like a secret. */
function safeEnvironment(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || /TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE|(^|_)KEY($|_)/i.test(name)) continue;
    out[name] = value;
  }
  return out;
}

/** What one record gave: its results as lines to print, or the error that stopped it. */
export interface JqOutcome {
  lines: string[];
  error?: string;
}

/** A checked expression, ready to run on records. */
export class JqProgram {
  private readonly wrapped: string;
  private readonly keys?: string[];

  constructor(
    private readonly engine: Engine,
    readonly expression: string,
    env: Env,
  ) {
    this.keys = keysRead(expression);
    const unavailable = 'error("input and inputs are not available: the expression runs on each record (all of them at once with --slurp)")';
    this.wrapped =
      // All on the expression's first line, so that line numbers ($__loc__) are the expression's.
      `(${JSON.stringify(safeEnvironment(env))}) as $ENV | def env: $ENV; def input: ${unavailable}; def inputs: input; def input_filename: null; ` +
      `(try (${expression}\n) catch {"\\u0000forgectl-error": .}), "\\u0000forgectl-end"`;
  }

  /**
   * Runs the expression once on each value, in order, and returns what each gave, up to and including the first one
   * that failed (or halted: `halt` ends the whole run, with what was printed before it).
   */
  run(values: unknown[]): { outcomes: JqOutcome[]; halted: boolean; debug: string } {
    const input = withoutLoneSurrogates(values.map((value) => (value instanceof JsonText ? value.text : (JSON.stringify(this.keys ? this.project(value) : value) ?? 'null'))).join('\n'));
    const run = runJq(this.engine, input, this.wrapped);
    const outcomes: JqOutcome[] = [];
    let current: JqOutcome = { lines: [] };
    for (const line of run.stdout.split('\n')) {
      if (!line) continue;
      if (line === END) {
        outcomes.push(current);
        if (current.error !== undefined) break;
        current = { lines: [] };
      } else if (line.startsWith(ERROR_KEY)) {
        current.error = errorText((JSON.parse(line) as Record<string, unknown>)['\u0000forgectl-error']);
      } else if (current.error === undefined) {
        current.lines.push(line);
      }
    }
    let debug = run.stderr;
    const failed = outcomes.some((o) => o.error !== undefined);
    let halted = false;
    if (!failed && outcomes.length < values.length) {
      // halt_error (jq's exit 5) or halt (exit 0) ended jq before the remaining records.
      if (run.exitCode !== 0) {
        outcomes.push({ lines: current.lines, error: run.stderr.replace(/\n$/, '') || `jq exited with ${run.exitCode}` });
        debug = '';
      } else {
        outcomes.push(current);
        halted = true;
      }
    }
    return { outcomes, halted, debug };
  }

  private project(value: unknown): unknown {
    return projectKeys(value, this.keys!);
  }
}

/**
 * JSON text with each \\u escape of a lone surrogate made U+FFFD's. jq refuses a text with a lone high surrogate (the
 * whole run would fail on one odd character in one record) and reads a lone low one as U+FFFD, as it reads bytes
 * that are not UTF-8. (JSON.stringify writes lone surrogates as escapes, and pairs as they are.)
 */
function withoutLoneSurrogates(text: string): string {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return text;
  return text.replace(/(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})/g, (escape: string, backslashes: string, hex: string, at: number) => {
    // An even run of backslashes is escaped backslashes, then the text "u…".
    if (backslashes.length % 2 === 0) return escape;
    const high = parseInt(hex, 16) < 0xdc00;
    const paired = high ? /^\\u[dD][c-fC-F]/.test(text.slice(at + escape.length)) : /\\u[dD][89abAB][0-9a-fA-F]{2}$/.test(text.slice(0, at + backslashes.length - 1));
    return paired ? escape : `${backslashes}ufffd`;
  });
}

/** Only the keys the expression reads, of a plain object; anything else as it is. */
function projectKeys(value: unknown, keys: string[]): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  // No prototype: a key named __proto__ is then a key like any other, not the object's prototype.
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of keys) if (Object.hasOwn(value, key)) out[key] = (value as Record<string, unknown>)[key];
  return out;
}

/** A caught error's value as jq prints it: a string as it is, anything else after "(not a string)". */
function errorText(value: unknown): string {
  if (typeof value === 'string') return value;
  return `${value === null ? '(null)' : '(not a string)'}: ${JSON.stringify(value)}`;
}

/** Loads jq and checks the expression: a UsageError (exit 2) with jq's message, line and column when it is wrong. */
export async function compileJq(expression: string, env: Env): Promise<JqProgram> {
  if (!expression.trim()) throw new UsageError('--jq needs an expression', "for every record as it is, use --jq '.'");
  const engine = await loadEngine();
  // Compiled and not run (there is no input); the listing of the compiled program tells what it calls.
  const check = runJq(engine, '', expression, ['--debug-dump-disasm']);
  if (check.exitCode !== 0) {
    const error = firstError(check.stderr);
    const at = locate(engine, expression, error);
    const where = at ? ` at line ${at.line}, column ${at.column}` : error.line ? ` at line ${error.line}` : '';
    throw new UsageError(`--jq: ${error.text}${where}`, at ? `${pointAt(expression, at)}` : undefined);
  }
  // jq's own input (inputs calls it): the next record would be read as if it were the expression's to take.
  if (/\bCALL_BUILTIN input\b/.test(check.stdout)) {
    throw new UsageError('--jq: input and inputs are not available: the expression runs on each record by itself', "to run it once on all the records as one array: --slurp --jq '…'");
  }
  return new JqProgram(engine, expression, env);
}

/** The expression's line with a marker before the column (a hint is one line). */
function pointAt(expression: string, at: { line: number; column: number }): string {
  const line = expression.split('\n')[at.line - 1] ?? '';
  return `${line.slice(0, at.column - 1)}⟨here⟩${line.slice(at.column - 1)}`;
}

/** One result line as printed: a string raw (as jq -r), anything else as jq's compact JSON; controls made harmless on a terminal. */
function printable(line: string, terminal: boolean): string {
  if (line.startsWith('"')) {
    const text = JSON.parse(line) as string;
    return terminal ? visible(text) : text;
  }
  return terminal ? escapeC1(line, 'json') : line;
}

/** What jq runs on: a single value (a record, or a collection with --slurp), or the records of a list's pages. */
export type JqSource = { one: unknown } | { pages: AsyncIterable<unknown[]> };

/**
 * Prints what the expression gives for a single value, or for each record of a list as its pages arrive. An error
 * of the expression (a runtime error, error(), halt_error) is bad input, as jq's own exit 5 says: it stops the run
 * with exit 2, naming the record, after the results the expression gave before it (as jq prints them).
 */
export async function printJq(program: JqProgram, source: JqSource, io: Io): Promise<void> {
  const terminal = io.stdoutIsTTY;
  const lines = (outcome: JqOutcome): string => outcome.lines.map((line) => `${printable(line, terminal)}\n`).join('');
  const debug = (text: string): void => void (text && io.streams.stderr.write(visible(text.endsWith('\n') ? text : `${text}\n`)));
  if ('one' in source) {
    const { outcomes, debug: stderr } = runOrStop(program, [source.one], '');
    debug(stderr);
    const outcome = outcomes[0] ?? { lines: [] };
    const text = lines(outcome);
    if (text) await io.out(text);
    if (outcome.error !== undefined) throw new UsageError(`--jq: ${outcome.error}`, arrayHint(outcome.error));
    return;
  }
  const state = io.state;
  state.records = 0;
  let index = 0;
  for await (const arrived of batches(source.pages)) {
    for (let start = 0; start < arrived.length; start += BATCH) {
      const batch = arrived.slice(start, start + BATCH);
      const where = batch.length > 1 ? ` (on one of records ${index + 1} to ${index + batch.length})` : ` (on record ${index + 1}, index ${index})`;
      const { outcomes, halted, debug: stderr } = runOrStop(program, batch, where);
      debug(stderr);
      let text = '';
      let failure: UsageError | undefined;
      for (const outcome of outcomes) {
        text += lines(outcome);
        if (outcome.error !== undefined) {
          failure = new UsageError(`--jq: ${outcome.error} (on record ${index + 1}, index ${index})`, PER_RECORD.test(outcome.error) ? SLURP_HINT : undefined);
          break;
        }
        index++;
      }
      if (text) await io.out(text);
      state.records = index;
      if (failure) throw failure;
      if (halted) {
        state.complete = true;
        return;
      }
    }
  }
  state.complete = true;
}

/** Errors of an expression written for an array that ran on a record (an object) of it: `.[0]`, `first`, `sort`. */
const PER_RECORD = /^Cannot index object with (number|object)$|cannot be sorted, as it is not an array$|cannot be iterated over$/;
const SLURP_HINT = "the expression runs once on each record of the list; --slurp runs it once on all of them as one array: --slurp --jq '…'";

/** For an expression written for one record that got an array (--slurp's, or an answer's): how to reach its elements. */
function arrayHint(error: string): string | undefined {
  const key = /^Cannot index array with string "([A-Za-z_]\w*)"$/.exec(error)?.[1];
  return key ? `the value is an array (with --slurp, all the records): take each element's with .[].${key} or map(.${key})` : undefined;
}

/** program.run(), with jq's running out of memory as the error that ends the run (`where`: the records it was on). */
function runOrStop(program: JqProgram, values: unknown[], where: string): ReturnType<JqProgram['run']> {
  try {
    return program.run(values);
  } catch (error) {
    if (!(error instanceof JqOutOfMemory)) throw error;
    throw new CliError(`--jq: ${error.message}${where}`, ExitCode.internal, 'the expression builds a value too large, or recurses without end');
  }
}

/** A value handed to jq as JSON text, so that its numbers keep the form they were written in. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * What jq runs on for an answer of `api`, as the answer's own text: each element of an array (the whole array with
 * --slurp), or the one value (in an array of one with --slurp).
 */
export function answerSource(answer: JsonAnswer, slurp: boolean): JqSource {
  const isArray = Array.isArray(answer.value);
  if (slurp) return { one: new JsonText(isArray ? answer.text : `[${answer.text}]`) };
  if (!isArray) return { one: new JsonText(answer.text) };
  const elements = elementTexts(answer.text).map((text) => new JsonText(text));
  return { pages: (async function* () { yield elements; })() };
}

/** The texts of the elements of an array's JSON text (which JSON.parse accepted): cut at the commas of its top level. */
export function elementTexts(text: string): string[] {
  const elements: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  const cut = (end: number): void => {
    const element = text.slice(start, end).trim();
    if (element) elements.push(element);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (depth++ === 0) start = i + 1;
    } else if (c === ']' || c === '}') {
      if (--depth === 0) cut(i);
    } else if (c === ',' && depth === 1) {
      cut(i);
      start = i + 1;
    }
  }
  return elements;
}

/**
 * The records of the pages as they arrive, gathered: the pages already there (up to BATCH records) come together;
 * a page still on its way ends the gathering after BATCH_WAIT_MS.
 */
async function* batches(pages: AsyncIterable<unknown[]>): AsyncGenerator<unknown[]> {
  const iterator = pages[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<unknown[]>> | undefined;
  let gathered: unknown[] = [];
  try {
    for (;;) {
      pending ??= iterator.next();
      let timer: NodeJS.Timeout | undefined;
      const waited = gathered.length ? new Promise<'wait'>((resolve) => (timer = setTimeout(() => resolve('wait'), BATCH_WAIT_MS))) : undefined;
      let next: IteratorResult<unknown[]> | 'wait';
      try {
        next = await (waited ? Promise.race([pending, waited]) : pending);
      } catch (error) {
        // The records that arrived before the failure are printed before it is reported.
        clearTimeout(timer);
        pending = undefined;
        if (gathered.length) yield gathered;
        throw error;
      }
      clearTimeout(timer);
      if (next === 'wait') {
        yield gathered;
        gathered = [];
        continue;
      }
      pending = undefined;
      if (next.done) break;
      gathered = gathered.length ? gathered.concat(next.value) : next.value;
      if (gathered.length >= BATCH) {
        yield gathered;
        gathered = [];
      }
    }
    if (gathered.length) yield gathered;
  } finally {
    // Stopped early (an error, halt): the pages' own clean-up (requests in flight) runs.
    if (pending) pending.then(() => iterator.return?.(), () => undefined);
    else await iterator.return?.();
  }
}
