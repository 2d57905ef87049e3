import type { Api } from '../api/client.js';
import type { RecordLookup } from './not-found.js';
import type { PageOptions } from '../api/paginate.js';
import type { Env } from '../config/paths.js';
import type { Connection } from '../config/resolve.js';
import type { ConfigData } from '../config/store.js';
import type { RateGate } from '../http/rate-gate.js';
import type { Format } from '../output/formats.js';
import type { Io, Streams } from '../output/io.js';
import type { ColumnPriority } from '../output/table.js';

export interface OptionDef {
  /** Commander flags: '--expires-at <date>', '-y, --yes', '--no-enabled'. */
  flags: string;
  description: string;
  /** Validates and converts the value; throws UsageError (exit 2) on bad input. */
  parse?: (value: string, previous?: any) => unknown;
  default?: unknown;
  required?: boolean;
  choices?: readonly string[];
  /**
   * See LocalFile: the option's value names something of this machine, so it is never a tool input. false: the name
   * says file but it is one of the instance (`snippets raw --file`).
   */
  localFile?: LocalFile | false;
  /** Given, the option makes a command that reads change the instance (`hooks audit --fix`): no input of its read tool. */
  mutates?: true;
}

/**
 * Whether a value names a file, folder, command, environment variable or stdin of the machine forgectl runs on (read,
 * run or written): true for every value, or a test saying which values do (`key=@FILE`). The agent interface never
 * takes such a value from a tool call: an option or argument marked true is no tool input, and a command that
 * requires one is no tool; values a test picks out are refused.
 */
export type LocalFile = true | ((value: string) => boolean);

/**
 * What the values of an option or argument are, for shell completion: file names, profile names, one of a list of
 * values (with list, several of them, comma-separated), or free text (nothing offered).
 */
export type ValueKind = 'file' | 'profile' | 'text' | { values: readonly string[]; list?: boolean };

/** A positional argument: its commander syntax ('<id>', '[id]', '<pairs...>') and what it is. */
export interface ArgDef {
  spec: string;
  description: string;
  localFile?: LocalFile | false;
  /**
   * What its values are, for completion, or what they are given the arguments before it (`profile set output …`);
   * without it, files where localFile is true, else nothing offered.
   */
  values?: ValueKind | ((before: string[]) => ValueKind);
}

/** The syntax of an argument, given as a string or an ArgDef. */
export const argSpec = (arg: string | ArgDef): string => (typeof arg === 'string' ? arg : arg.spec);

/** The key of an argument in the options object run() gets: `<move-id>` → moveId. */
export const argName = (arg: string | ArgDef): string => argSpec(arg).replace(/[<>[\]]|\.\.\./g, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export interface GlobalOptions {
  profile?: string;
  server?: string;
  output?: Format;
  fields?: string[];
  /** --jq, --slurp, --template: how records are printed instead of -o (src/cli/shaping.ts). */
  jq?: string;
  slurp?: boolean;
  template?: string;
  verbose?: boolean;
  quiet?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  timeout?: number;
  retries?: number;
  caFile?: string;
  insecure?: boolean;
  color?: boolean;
}

/** What a command's records are declared to have: their fields, and the columns it adds to them (computed ones). */
export const declaredFields = (def: CommandDef): string[] | undefined => def.recordFields && [...new Set([...def.recordFields, ...(def.columns ?? [])])];

/** The global options as given, before a run reads them (--fields as its text). */
export type GivenGlobals = Omit<GlobalOptions, 'fields'> & { fields?: string };

/**
 * One command to run: what parsing a command line gives, or what the agent interface builds from a tool call's
 * input (each option's value through the option's own parser). No value in it can become another option.
 */
export interface Invocation {
  /** The command's path in the manifest: 'projects get'. */
  path: string;
  /** What its run() gets: options and arguments by their camelCased names, parsed. */
  opts: Record<string, unknown>;
  globals: GivenGlobals;
}

export interface Prompter {
  input(message: string, options?: { default?: string; validate?: (value: string) => true | string }): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
}

/** What a command's run() gets: everything it touches comes from here, so tests inject it all. */
export interface Context {
  /** The API client; first use resolves the connection (exit 3 when nothing is configured). */
  readonly api: Api;
  /**
   * Set when the command runs for one project of a run over several (--group, --projects-file): a bulk deletion,
   * which leaves alone what the service protects.
   */
  readonly inFleet?: boolean;
  readonly io: Io;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly format: Format;
  readonly configDir: string;
  /** Pagination flags of a list command. */
  readonly paging: PageOptions;
  /**
   * The run's one rate budget, shared by every request of every client of the run. Passive until a command that
   * works on many projects at once activates it (src/fleet/).
   */
  readonly rateGate: RateGate;
  /** Settles when SIGINT or SIGTERM asks the run to stop (commands that serve until stopped wait for it). */
  readonly interrupted: Promise<'SIGINT' | 'SIGTERM'>;
  now(): Date;
  /** Waits this many milliseconds (pacing, polling); tests make it instant. */
  sleep(ms: number): Promise<void>;
  /**
   * Runs another command in this process on the path every command runs on (output shaping, context, fleet, render,
   * errors and exit codes), its output going to the streams given: the agent interface's tool calls. `interrupted`
   * stops it as SIGINT stops a command line (a cancelled tool call): no request is sent after it settles.
   */
  execute(invocation: Invocation, streams: Streams, interrupted?: Promise<'SIGINT' | 'SIGTERM'>): Promise<number>;
  /** The commands this program offers (shell completion and the agent interface list them). */
  readonly commands: Commands;
  connection(): Connection;
  /** A client for an explicit connection (auth login checks a token before saving it). dryRun: as --dry-run does. */
  apiFor(connection: Connection, options?: { dryRun?: boolean }): Api;
  /** A client for another token on the profile's instance (rotation's verification GET). */
  apiWithToken(token: string): Api;
  /** Another client over the same connection and pool whose --dry-run output goes elsewhere (one per fleet project). */
  forkApi(printDryRun: (text: string) => void): Api;
  readConfig(): ConfigData;
  /** Asks on a terminal; off a terminal requires --yes (exit 2 otherwise). Passes under --dry-run. */
  confirm(question: string): Promise<void>;
  readonly prompt: Prompter;
  /**
   * --project or the profile's default_project; exit 2 when neither is set. `given` says how this command takes it
   * when not by --project (`forgectl projects get ID|PATH`).
   */
  project(value: string | undefined, given?: string): string;
  /** --group or the profile's default_group; exit 2 when neither is set. `given` as for project(). */
  group(value: string | undefined, given?: string): string;
  /** The profile's default_project and default_group (commands that take either fall back to them). */
  defaults(): { project?: string; group?: string };
}

export interface CommandDef<O = any> {
  description?: string;
  /** At least one, shown under --help. */
  examples: string[];
  /** A verb of one record of a declared resource (get, update, delete): what its 404 names to list the records. */
  record?: RecordLookup;
  /**
   * Commander argument syntax: '<id>', '[id]', '<pairs...>', or an ArgDef with what the argument is. Values arrive in
   * opts under their camelCased name.
   */
  args?: Array<string | ArgDef>;
  /**
   * The hint for a command line with more words than the arguments take (given those words), where the command
   * knows what they were likely meant as: `profile set dana timeout 10` names the profile with -p.
   */
  extraWordsHint?(words: string[]): string | undefined;
  options?: OptionDef[];
  /**
   * What running it does to the instance: 'read' changes nothing; 'write' changes something; 'destructive' deletes,
   * revokes, replaces or overwrites what cannot be had back. The agent interface makes tools only of commands that
   * say (their read-only and destructive hints come from here), and lists a write's tool only where writes are allowed.
   */
  effect?: 'read' | 'write' | 'destructive';
  /** Adds --page, --per-page, --all and --limit (read them from ctx.paging); 'keyset': a list without page numbers (no --page). */
  list?: boolean | 'keyset';
  /** Default columns for table, TSV and CSV output of lists. */
  columns?: string[];
  /** What of those columns a narrow terminal keeps first, where the table's defaults are not enough. */
  columnPriority?: ColumnPriority;
  /** The top-level fields of its records as declared: --fields accepts them even when a record lacks one (shown as null). */
  recordFields?: readonly string[];
  /**
   * Its records are forgectl's own (built by the command, as access report's rows are), so recordFields is all they
   * can have: --fields is checked against it before a read's first request. A read of the service's records is
   * checked against what the service sends, which may hold more than a declaration lists.
   */
  ownRecords?: boolean;
  /** Formats of -o this command writes itself besides the common ones (`variables export -o dotenv`). */
  formats?: readonly string[];
  /** Output format when -o is not given, instead of the profile's or table (`api` prints JSON). */
  defaultFormat?: Format;
  /**
   * 'projects-file': the command works on one project or on its own --group (the group's variables, members …), and
   * takes a fleet of projects by --projects-file instead of --project (the whole selector's --group would clash).
   * Commands with --project and no --group of their own take the whole selector without saying so.
   */
  fleet?: 'projects-file';
  /**
   * The exit codes that mean something particular for this command, and what (the reference pages list them beside
   * those of every command): `{ 9: 'drift: the instance differs from the file' }`.
   */
  exits?: Record<number, string>;
  /**
   * false: the command never uses the token of the profile in use (ctx.api, ctx.connection()), so it is not read from
   * the OS keyring before the command runs (auth login, profile commands, completion scripts).
   */
  credentials?: false;
  run(opts: O, ctx: Context): Promise<unknown>;
}

/** The host of the connection, to name the instance in prompts. */
export function instanceName(ctx: Context): string {
  try {
    return new URL(ctx.connection().rootUrl).host;
  } catch {
    return 'the instance';
  }
}

/** A command is data plus run(); the shared wiring parses, validates, confirms, calls and renders. */
export function defineCommand<O = Record<string, any>>(def: CommandDef<O>): CommandDef<O> {
  return def;
}

/**
 * Every command: its path, one-line summary, and how to load it. Help and completion read this without loading
 * any command module; running a command loads only its own module (each is a separate chunk in the bundle).
 */
export interface ManifestEntry {
  path: string;
  summary: string;
  load: () => Promise<{ default: CommandDef }>;
}

/**
 * The hidden command the shell completion scripts run at each TAB (`forgectl __complete WORD… CURRENT`, in
 * completion.ts): not in the manifest, so no help, tool or page lists it.
 */
export const COMPLETE_COMMAND = '__complete';

/** The commands a program offers (src/commands/manifest.ts): every entry, and the summaries of the groups. */
export interface Commands {
  manifest: ManifestEntry[];
  groups: Record<string, string>;
}

/**
 * Manifest entries for a module whose default export holds several commands by verb (plainCommands of a declared
 * resource): `verbEntries('badges', () => import('./commands.js'), { list: 'List …', get: 'Show …' })`.
 */
export function verbEntries(group: string, load: () => Promise<{ default: Partial<Record<string, CommandDef>> }>, summaries: Record<string, string>): ManifestEntry[] {
  return Object.entries(summaries).map(([verb, summary]) => ({
    path: `${group} ${verb}`,
    summary,
    load: async () => {
      const command = (await load()).default[verb];
      if (!command) throw new Error(`${group} ${verb}: the module defines no such command`);
      return { default: command };
    },
  }));
}
