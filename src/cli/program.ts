import { Command, CommanderError, Help, Option } from 'commander';
import type { Env } from '../config/paths.js';
import { configDir } from '../config/paths.js';
import { profileFixHint, selectedProfileName } from '../config/resolve.js';
import { readConfig, type ConfigData } from '../config/store.js';
import { FORMATS, OWN_FORMATS, type Format } from '../output/formats.js';
import { checkFields, parseFields } from '../output/fields.js';
import { forStderr, Io, OutputState, type Streams } from '../output/io.js';
import { render } from '../output/render.js';
import { ResultWithExit } from '../output/result.js';
import { argName, argSpec, declaredFields, type CommandDef, type GivenGlobals, type GlobalOptions, type Invocation, type OptionDef } from './command.js';
import type { RunContext } from './context.js';
import { ConfigError, ExitCode, UsageError } from '../errors.js';
import type { Commands, ManifestEntry } from './command.js';
import { HELP_TOPICS, HELP_TOPICS_LINE } from './help-topics.js';
import { deferredItem, deferredParagraph, layoutDeferred, layoutItem, wrapParagraph } from './help-layout.js';
import { FLEET_HELP_GROUP, fleetKind, fleetOptionsOf } from './fleet-options.js';
import { listOptions, pageOption } from './options.js';
import { closestName, editDistance, parseChoice, parseInteger, plural } from '../parse.js';

export interface CliDeps extends Streams {
  env: Env;
  now?: () => Date;
  /** Settles with the signal that asks the run to stop (the bin wires SIGINT and SIGTERM to it). */
  interrupted?: Promise<'SIGINT' | 'SIGTERM'>;
  /** Waits (rate-limit pacing, polling); tests pass a fake clock's. */
  sleep?: (ms: number) => Promise<void>;
}

/** -o: the common formats (completed, and named by its errors), and those some commands write themselves (checked per command). */
const parseOutput = Object.assign((value: string) => OWN_FORMATS.find((format) => format === value.toLowerCase()) ?? parseChoice('--output', FORMATS)(value), { choices: FORMATS });

/** Global options of contract §3, on the root command. */
export const globalOptions: OptionDef[] = [
  { flags: '-p, --profile <name>', description: 'profile to use (FORGECTL_PROFILE)' },
  { flags: '--server <url>', description: 'instance URL, overrides the profile (FORGECTL_URL)' },
  { flags: '-o, --output <format>', description: `output format: ${FORMATS.join(', ')}`, parse: parseOutput },
  { flags: '--fields <a,b.c>', description: 'fields to show, dotted paths into records' },
  { flags: '--jq <expression>', description: 'print what a jq expression gives for each record: strings raw, the rest as compact JSON (forgectl help formatting)' },
  { flags: '--slurp', description: 'with --jq: run the expression once, on all the records as one array' },
  { flags: '--template <text|@file>', description: 'print each record through a Liquid template (forgectl help formatting)' },
  { flags: '-v, --verbose', description: 'log each request and response status to stderr (secrets redacted)' },
  { flags: '-q, --quiet', description: 'no spinners, hints or notices on stderr' },
  { flags: '--dry-run', description: 'print the changing request instead of sending it' },
  { flags: '-y, --yes', description: 'answer yes to confirmations' },
  { flags: '--timeout <seconds>', description: 'per request timeout (default 30)', parse: parseInteger('--timeout', 1, 3600) },
  { flags: '--retries <n>', description: 'retries of retryable failures (default 3)', parse: parseInteger('--retries', 0, 10) },
  { flags: '--ca-file <path>', description: 'trust this CA certificate (PEM) as well' },
  { flags: '--insecure', description: 'skip TLS certificate verification' },
  { flags: '--no-color', description: 'no colour (also NO_COLOR)' },
];

/** The root help's sections, in the README's order, and the top-level commands in each. */
const HELP_SECTIONS: Array<[string, string[]]> = [
  ['Setup and raw requests:', ['auth', 'profile', 'doctor', 'api', 'completion', 'sandbox', 'version']],
  ['Tokens:', ['tokens', 'service-accounts']],
  ['Projects and groups:', ['projects', 'groups', 'members', 'group-badges']],
  ['Review workflow:', ['approvals', 'approval-rules', 'merge-trains', 'notes', 'draft-notes']],
  ['Audit events:', ['audit-events']],
  ['Project settings:', ['integrations', 'badges', 'freeze-periods', 'secure-files', 'keys', 'deploy-keys', 'push-rule', 'protected-tags', 'protected-branches', 'mirror', 'variables']],
  ['Instance administration:', ['users', 'access', 'settings', 'plan-limits', 'experiments', 'license', 'storage-move', 'alerts']],
  ['Repositories:', ['repo', 'branches', 'tags', 'commits', 'files', 'submodules']],
  ['CI runners and deploy tokens:', ['runners', 'deploy-tokens']],
  ['Webhooks, job artifacts and snippets:', ['hooks', 'artifacts', 'snippets']],
  ['Configuration as code:', ['plan', 'apply', 'export', 'validate']],
  ['AI assistants:', ['mcp']],
];

/**
 * The root help with its options (the global options, a score of lines) after the commands, which are what a reader
 * of `forgectl --help` looks for: commander writes them first.
 */
function optionsLast(text: string): string {
  const sections = text.trimEnd().split(/\n\n(?=\S[^\n]*:\n)/);
  const options = sections.findIndex((section) => section.startsWith('Options:\n'));
  if (options < 0) return text;
  return `${[...sections.slice(0, options), ...sections.slice(options + 1), sections[options]].join('\n\n')}\n`;
}

/**
 * The section of a top-level command in the root help, its rank, and its place in the section (unlisted ones last,
 * under "Commands:", in the manifest's order).
 */
export function helpSection(word: string): { heading: string; rank: number; place: number } {
  const rank = HELP_SECTIONS.findIndex(([, names]) => names.includes(word));
  return rank < 0 ? { heading: 'Commands:', rank: HELP_SECTIONS.length, place: 0 } : { heading: HELP_SECTIONS[rank][0], rank, place: HELP_SECTIONS[rank][1].indexOf(word) };
}

const helpOrder = (a: ManifestEntry, b: ManifestEntry): number => {
  const [x, y] = [helpSection(a.path.split(' ')[0]), helpSection(b.path.split(' ')[0])];
  return x.rank - y.rank || x.place - y.place;
};

/** A group's help names the global options instead of listing them before its commands. */
const GLOBAL_OPTIONS_POINTER = '\nGlobal options (-p, -o, --fields, -q, --dry-run, -y …) work with every command;\nforgectl --help lists them.\n';

/** Global options that take a value, so the command path can be found in argv without full parsing. */
const VALUE_FLAGS = new Set(['-p', '--profile', '--server', '-o', '--output', '--fields', '--jq', '--template', '--timeout', '--retries', '--ca-file']);

/** The words of argv that name a command (and what follows), with their indexes; global options and values skipped. */
function commandWords(argv: string[]): Array<{ word: string; index: number }> {
  const words: Array<{ word: string; index: number }> = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (VALUE_FLAGS.has(arg)) i++;
      continue;
    }
    words.push({ word: arg, index: i });
  }
  return words;
}

/**
 * How argv's leading words match the manifest: the command they name, or the first word that names nothing (after a
 * group, or at the top), with the words that followed it.
 */
function matchCommand({ manifest }: Commands, words: string[]): { entry?: ManifestEntry; unknown?: { word: string; after: string; rest: string[] } } {
  // The longest command the words name: `plan merge a.json` is plan merge, `plan -f x` is plan.
  let found: ManifestEntry | undefined;
  for (let n = 1; n <= words.length; n++) {
    const prefix = words.slice(0, n).join(' ');
    const entry = manifest.find((candidate) => candidate.path === prefix);
    if (entry) found = entry;
    if (!manifest.some((candidate) => candidate.path.startsWith(`${prefix} `))) return found ? { entry: found } : { unknown: { word: words[n - 1], after: words.slice(0, n - 1).join(' '), rest: words.slice(n) } };
  }
  return found ? { entry: found } : {};
}

/** The manifest entry named by argv's leading words, skipping global options and their values. */
export function findEntry(commands: Commands, argv: string[]): ManifestEntry | undefined {
  return matchCommand(commands, commandWords(argv).map((w) => w.word)).entry;
}

/** Groups most commands live in: among equally close guesses, these come first. */
const COMMON_GROUPS = ['projects', 'groups', 'commits', 'users', 'repo', 'files', 'tokens'];

/** Words for taking something away, and the verbs the groups take it away with (`protected-branches unprotect`). */
const REMOVE_WORDS = ['delete', 'remove', 'rm', 'del', 'destroy'];
const REMOVE_VERBS = ['delete', 'remove', 'revoke', 'unprotect', 'unassign', 'unshare', 'disable'];

/**
 * The command a mistyped word most likely meant, searched over the whole tree: a sibling of the word by edit
 * distance (a prefix of 3 letters or more counts as one edit), else, for a word typed at the top, a command elsewhere
 * of that name (`forgectl rotate` → `tokens rotate`); among equals, one the following words continue (`project
 * list` → `projects list`), then a common group. The words that continue the guess are kept in it. Inside a group
 * the guess stays in it: `protected-branches delete` is not `projects delete`, but the group's own way of removing,
 * where it has exactly one (`protected-branches unprotect`).
 */
function guessCommand({ manifest }: Commands, unknown: { word: string; after: string; rest: string[] }): string | undefined {
  const nodes = new Set(manifest.flatMap((entry) => entry.path.split(' ').map((_, i, words) => words.slice(0, i + 1).join(' '))));
  const word = unknown.word.toLowerCase();
  const limit = Math.max(1, Math.floor(word.length / 3));
  const continued = (path: string): string => {
    let longest = path;
    for (let n = 1; n <= unknown.rest.length && nodes.has(`${path} ${unknown.rest.slice(0, n).join(' ')}`); n++) longest = `${path} ${unknown.rest.slice(0, n).join(' ')}`;
    return longest;
  };
  const ranked = [...nodes]
    .map((path) => {
      const words = path.split(' ');
      const name = words[words.length - 1];
      const distance = word.length >= 3 && name.startsWith(word) ? Math.min(1, editDistance(word, name)) : editDistance(word, name);
      const elsewhere = words.slice(0, -1).join(' ') !== unknown.after;
      const guess = continued(path);
      const common = COMMON_GROUPS.indexOf(words[0]);
      return { guess, distance, elsewhere, score: distance + (elsewhere ? 2 : 0), continues: guess !== path ? 0 : 1, common: common < 0 ? COMMON_GROUPS.length : common };
    })
    .filter((candidate) => candidate.distance <= limit && !(unknown.after && candidate.elsewhere))
    .sort((a, b) => a.score - b.score || a.continues - b.continues || a.common - b.common || a.guess.localeCompare(b.guess));
  if (ranked.length || !unknown.after || !REMOVE_WORDS.some((remove) => editDistance(word, remove) <= 1)) return ranked[0]?.guess;
  const removers = [...nodes].filter((path) => path.startsWith(`${unknown.after} `) && path.split(' ').length === unknown.after.split(' ').length + 1 && REMOVE_VERBS.includes(path.split(' ').pop()!));
  return removers.length === 1 ? removers[0] : undefined;
}

/**
 * Commander's command, with forgectl's own error for an unknown option: `error: unknown option '--per-pag'` and a
 * `hint:` line with the nearest option of the command (its own and those of the commands above it), as an unknown
 * command gets, instead of commander's "(Did you mean …?)".
 */
class CliCommand extends Command {
  override createCommand(name?: string): Command {
    return new CliCommand(name);
  }

  unknownOption(flag: string): never {
    const lineage: Command[] = [this];
    while (lineage[0].parent) lineage.unshift(lineage[0].parent);
    const known = lineage.flatMap((command) => command.options.map((option) => option.long).filter((long): long is string => Boolean(long)));
    const path = lineage.slice(1).map((command) => command.name());
    const given = flag.replace(/=.*/, '');
    const guess = given.startsWith('--') ? closestName(given, known) : undefined;
    throw new UsageError(`unknown option '${given}'`, guess ? `did you mean ${guess}?` : `${['forgectl', ...path].join(' ')} --help lists its options`);
  }
}

/** Exit 2 for a command that does not exist, also with --help (which would otherwise show the parent's help). */
function unknownCommand(commands: Commands, unknown: { word: string; after: string; rest: string[] }): UsageError {
  const guess = guessCommand(commands, unknown);
  const where = unknown.after ? `forgectl ${unknown.after}` : 'forgectl';
  return new UsageError(`unknown command "${unknown.after ? `${unknown.after} ` : ''}${unknown.word}"`, guess ? `did you mean: forgectl ${guess}?` : `${where} --help lists the commands`);
}

/** Help is laid out to the width of the terminal it goes to, else to 80 columns (as bin/forgectl.cjs does). */
const helpWidth = (streams: Pick<Streams, 'stdout'>): number => (streams.stdout.isTTY && streams.stdout.columns) || 80;

/**
 * `forgectl help …`: a help topic, or the help of the command named (`help tokens rotate` is `tokens rotate --help`).
 * Returns argv to run instead, or the topic's text.
 */
function helpRequest(commands: Commands, argv: string[]): { argv?: string[]; text?: string } {
  const words = commandWords(argv);
  if (words[0]?.word !== 'help') return { argv };
  const rest = words.slice(1).map((w) => w.word);
  if (rest.length === 1 && HELP_TOPICS[rest[0]]) return { text: HELP_TOPICS[rest[0]].text };
  const match = matchCommand(commands, rest);
  if (match.unknown) {
    const topics = Object.keys(HELP_TOPICS);
    // A mistyped topic (`help enviroment`) or command (`help tokens rotat`): the nearest, as `forgectl WORDS` guesses.
    const guess = (rest.length === 1 ? closestName(rest[0], topics) : undefined) ?? guessCommand(commands, match.unknown);
    const lists = match.unknown.after ? `forgectl help ${match.unknown.after} lists its commands` : `help topics: ${topics.join(', ')}; commands: forgectl --help`;
    throw new UsageError(`no help for "${rest.join(' ')}"`, guess ? `did you mean: forgectl help ${guess}?` : lists);
  }
  return { argv: [...argv.slice(0, words[0].index), ...argv.slice(words[0].index + 1), '--help'] };
}

export function toOption(def: OptionDef): Option {
  const option = new Option(def.flags, def.description);
  if (def.parse) option.argParser(def.parse as (value: string, previous: unknown) => unknown);
  if (def.default !== undefined) option.default(def.default);
  if (def.choices) option.choices(def.choices);
  if (def.required) option.makeOptionMandatory();
  return option;
}

/**
 * The root command with the commands as stubs (name and summary only), only as many as the run needs (start-up
 * time): the path to the one command being run, or a group (none: the top level) and the commands one level below
 * it, for its help.
 */
export function buildProgram({ manifest, groups }: Commands, streams?: Pick<Streams, 'stdout' | 'stderr'>, only?: ManifestEntry, group: string[] = []): { program: Command; leaves: Map<string, Command> } {
  const program = new CliCommand('forgectl')
    .description('Administer the software-delivery platform from the terminal, scripts and cron')
    .usage('<command> [options]')
    .showSuggestionAfterError(true)
    .exitOverride();
  if (streams) {
    program.configureOutput({
      writeOut: (text) => streams.stdout.write(text),
      writeErr: (text) => streams.stderr.write(text),
      outputError: (text, write) => write(forStderr(streams.stderr, text)),
      getOutHelpWidth: () => helpWidth(streams),
    });
  }
  program.version(`forgectl ${__FORGECTL_VERSION__}`, '-V, --version', 'print the version');
  // A command's help lists the global options it takes, under their own heading (all but --version, which is the
  // program's); a group's help lists its commands, and points to the global options in one line. Options that
  // must be given say so.
  // Items and paragraphs are laid out by help-layout.ts, as bin/forgectl.cjs lays out the texts rendered at build
  // time (which are written with their layout deferred, for it to wrap to the width it finds).
  const deferLayout = streams?.stdout.deferHelpLayout === true;
  program.configureHelp({
    formatItem(term, termWidth, description) {
      return deferLayout ? deferredItem(term, termWidth, description) : layoutItem(term, termWidth, description, this.helpWidth ?? 80);
    },
    boxWrap(text, width) {
      return deferLayout ? deferredParagraph(text) : wrapParagraph(text, width);
    },
    showGlobalOptions: true,
    visibleGlobalOptions(cmd) {
      return Help.prototype.visibleGlobalOptions.call(this, cmd).filter((option) => option.long !== '--version');
    },
    optionDescription(option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `required: ${text}` : text;
    },
    formatHelp(cmd, helper) {
      const text = Help.prototype.formatHelp.call(this, cmd, helper);
      return cmd.parent ? text : optionsLast(text);
    },
  });
  program.addHelpText('after', `\n${HELP_TOPICS_LINE}\n`);
  for (const def of globalOptions) program.addOption(toOption(def));
  const nodes = new Map<string, Command>([['', program]]);
  const leaves = new Map<string, Command>();
  const prefix = group.length ? `${group.join(' ')} ` : '';
  const entries = only ? [only] : manifest.filter((candidate) => candidate.path.startsWith(prefix));
  // The root help lists the commands section by section (a stable sort keeps the manifest's order within one).
  if (!only && !group.length) entries.sort(helpOrder);
  for (const entry of entries) {
    const words = entry.path.split(' ');
    let parent: Command = program;
    words.slice(0, only ? words.length : group.length + 1).forEach((word, index) => {
      const path = words.slice(0, index + 1).join(' ');
      let node = nodes.get(path);
      if (!node) {
        const isLeaf = index === words.length - 1;
        node = parent.command(word).description(isLeaf ? entry.summary : (groups[path] ?? '')).exitOverride();
        if (streams) node.configureOutput(program.configureOutput());
        if (index === 0) node.helpGroup(helpSection(word).heading);
        if (isLeaf) node.configureHelp(program.configureHelp());
        else node.configureHelp({ ...program.configureHelp(), showGlobalOptions: false }).addHelpText('after', GLOBAL_OPTIONS_POINTER);
        nodes.set(path, node);
        if (isLeaf) leaves.set(path, node);
      }
      parent = node;
    });
  }
  // Made after the commands, which would otherwise share it (and its section): `help` in the root help's first section.
  program.commandsGroup(HELP_SECTIONS[0][0]).helpCommand('help [command]', 'help for a command, or a topic (forgectl help exit-codes)');
  return { program, leaves };
}

/** Adds a command module's arguments, options and help examples to its stub (and the fleet selector, where it fits). */
export function attachDefinition(command: Command, def: CommandDef): void {
  if (def.description) command.description(`${command.description()}\n\n${def.description}`);
  for (const arg of def.args ?? []) command.argument(argSpec(arg), typeof arg === 'string' ? undefined : arg.description);
  // Words beyond a command's arguments are refused by the action, saying what they were likely meant as.
  command.allowExcessArguments(true);
  for (const option of def.options ?? []) command.addOption(toOption(option));
  for (const option of listOptions(def.list)) command.addOption(toOption(option));
  if (def.list === 'keyset') command.addOption(toOption(pageOption).hideHelp());
  for (const option of fleetOptionsOf(def)) command.addOption(toOption(option).helpGroup(FLEET_HELP_GROUP));
  if (def.examples.length) command.addHelpText('after', `\nExamples:\n${def.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
}

/** How many words a command's arguments take at most. */
const argumentRoom = (def: CommandDef): number => (def.args?.some((arg) => argSpec(arg).includes('...')) ? Infinity : (def.args?.length ?? 0));

/**
 * Exit 2 for more words than a command takes, saying what they were likely meant as: the command's own guess
 * (`profile set dana timeout 10` names the profile with -p), or, for a command without arguments, its one --X <id>
 * option (`artifacts delete 1` most likely meant `--job 1`).
 */
function tooManyArguments(path: string, def: CommandDef, words: string[]): UsageError {
  const given = words.map((word) => `"${word}"`).join(' ');
  const args = def.args ?? [];
  if (args.length) {
    const takes = `takes ${plural(args.length, 'argument')} (${args.map(argSpec).join(' ')})`;
    return new UsageError(`forgectl ${path} ${takes}, got ${words.length}: ${given}`, def.extraWordsHint?.(words) ?? `forgectl ${path} --help describes its arguments`);
  }
  const ids = (def.options ?? []).map((option) => option.flags).filter((flags) => /^--[\w-]+ <id>$/.test(flags));
  const flag = words.length === 1 && /^\d+$/.test(words[0]) && ids.length === 1 ? ids[0].split(' ')[0] : undefined;
  return new UsageError(`forgectl ${path} takes no arguments, got ${given}`, flag ? `did you mean: forgectl ${path} ${flag} ${words[0]}?` : `forgectl ${path} --help lists its options`);
}

/** Runs an invocation in this process as main() does, errors reported (the context's execute()). */
export type Executor = (invocation: Invocation, deps: CliDeps) => Promise<number>;

/**
 * Parses argv into the one command it names, its options and the global options, and runs them on the path every
 * command runs on (executeCommand). Returns the exit code; failures throw CliError / CommanderError.
 */
export async function runCli(commands: Commands, originalArgv: string[], deps: CliDeps, state = new OutputState(), executor?: Executor): Promise<number> {
  const help = helpRequest(commands, originalArgv);
  if (help.text !== undefined) {
    // A topic is laid out as a command's help is: to the terminal's width, else to 80 columns.
    deps.stdout.write(deps.stdout.deferHelpLayout ? help.text : layoutDeferred(help.text, helpWidth(deps)));
    return ExitCode.ok;
  }
  const argv = help.argv!;
  const words = commandWords(argv).map((w) => w.word);
  const match = matchCommand(commands, words);
  if (match.unknown) throw unknownCommand(commands, match.unknown);
  const entry = match.entry;
  // Without a command, the words name a group (or none): its help needs its own commands only.
  const { program, leaves } = buildProgram(commands, deps, entry, entry ? [] : words);
  let exitCode: number = ExitCode.ok;
  if (entry) {
    const leaf = leaves.get(entry.path)!;
    const def = (await entry.load()).default;
    attachDefinition(leaf, def);
    leaf.action(async (...actionArgs: unknown[]) => {
      const command = actionArgs[actionArgs.length - 1] as Command;
      if (command.args.length > argumentRoom(def)) throw tooManyArguments(entry.path, def, command.args);
      const opts: Record<string, unknown> = { ...command.opts() };
      (def.args ?? []).forEach((arg, index) => (opts[argName(arg)] = actionArgs[index]));
      exitCode = await executeCommand(commands, { path: entry.path, opts, globals: program.opts() }, deps, state, executor);
    });
  }
  await program.parseAsync(argv, { from: 'user' });
  return exitCode;
}

/**
 * The one path every command runs on, whether parsed from argv or built from a tool call: output shaping, the
 * context, a fleet of projects or one, rendering, and the exit code (0, or the one a ResultWithExit asks for, such as
 * an audit that found something). Failures throw CliError.
 */
export async function executeCommand(commands: Commands, { path, opts, globals }: Invocation, deps: CliDeps, state = new OutputState(), executor?: Executor): Promise<number> {
  const entry = commands.manifest.find((candidate) => candidate.path === path);
  if (!entry) throw new UsageError(`unknown command "${path}"`);
  const def = (await entry.load()).default;
  const own = OWN_FORMATS.find((format) => format === (globals.output as string));
  if (own && !def.formats?.includes(own)) throw new UsageError(`-o ${own} is not an output format of ${path}`, `use one of ${FORMATS.join(', ')}`);
  const { prepareShaping } = await import('./shaping.js');
  const shaping = await prepareShaping(globals, { env: deps.env, color: colorWanted(globals, deps), now: deps.now ?? (() => new Date()) });
  const kind = fleetKind(def);
  // The fleet selector (and the project declaration it lists with) is loaded only by commands that take it.
  const selection = kind && (await import('../fleet/select.js'));
  const fleet = selection && selection.fleetSelected(opts, kind);
  const recordFields = declaredFields(def);
  const declared = fleet && recordFields ? ['project', 'outcome', ...recordFields, 'error'] : recordFields;
  // --fields naming nothing the command's declared records have is refused before the first request: a change's
  // (exit 2 means nothing was sent), and a read's of records forgectl builds (a long read is not done for nothing).
  // A read of the service's records is checked against the first record, which may hold fields no declaration lists.
  const fields = parseFields(globals.fields);
  if (fields && declared && (def.ownRecords || (def.effect !== undefined && def.effect !== 'read'))) checkFields(fields, {}, declared);
  const context = await createContext(commands, globals, deps, opts, def, state, executor);
  try {
    if (def.credentials !== false) await context.readCredentialsAhead();
    if (selection) selection.checkSelection(opts, kind);
    const returned = fleet ? await (await import('./fleet.js')).runFleet(def, opts, context, path) : await def.run(opts, context);
    const status = returned instanceof ResultWithExit ? returned : undefined;
    await render(status ? status.result : returned, context.io, {
      format: context.format,
      fields: context.globals.fields,
      columns: fleet ? def.columns && ['project', 'outcome', ...def.columns, 'error'] : def.columns,
      // A fleet's rows are named by their project: it stays whole, whatever the command's own columns give up.
      columnPriority: fleet ? { ...def.columnPriority, identifying: 'project' } : def.columnPriority,
      declared,
      ...shaping,
    });
    if (status?.message) deps.stderr.write(`${forStderr(deps.stderr, status.message)}\n`);
    return status ? status.exitCode : ExitCode.ok;
  } catch (error) {
    // Loaded on failure only: explaining a refusal may look up the user, with the resource declarations that takes.
    const { explainRefusal } = await import('./refusal.js');
    const { explainNotFound } = await import('./not-found.js');
    const listed = (list: string) => commands.manifest.some((candidate) => candidate.path === list);
    const missing = explainNotFound(context.tokenRefusal(error), { path, record: def.record }, opts, listed);
    throw await explainRefusal(missing, { path, description: def.description }, () => context.api);
  } finally {
    await context.close();
  }
}

/** Loaded only when a command runs: help and usage errors need no HTTP client (undici). */
async function createContext(
  commands: Commands,
  raw: GivenGlobals,
  deps: CliDeps,
  opts: Record<string, unknown>,
  def: CommandDef,
  state: OutputState,
  executor?: Executor,
): Promise<RunContext> {
  const { RunContext } = await import('./context.js');
  const env = deps.env;
  const io = new Io(deps, { quiet: Boolean(raw.quiet), color: colorWanted(raw, deps) }, state);
  const globals: GlobalOptions = { ...raw, fields: parseFields(raw.fields) };
  const dir = configDir(env);
  // The output format: -o, then the command's own default, then the profile's `output`, then table. The config
  // read for it is handed to the context, which would otherwise read the file again.
  // --jq and --template read records as JSON, whatever the profile's format.
  const shaped = raw.jq !== undefined || raw.template !== undefined;
  const explicit = raw.output ?? (shaped ? 'json' : def.defaultFormat);
  // A config file that cannot be used (unreadable, not JSON, readable by others, a bad `output`) does not stop the
  // command here: it meets the same error when it reads the config, and `doctor`, which exists for these problems,
  // reports them as failed checks and repairs what it can.
  const checkConfig = explicit ? undefined : (data: ConfigData) => void profileFormat(globals, env, data);
  let config: ConfigData | undefined;
  let format: Format | undefined;
  try {
    config = explicit ? undefined : readConfig(dir);
    format = config && profileFormat(globals, env, config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    config = undefined;
  }
  return new RunContext({
    io,
    env,
    globals,
    format: explicit ?? format ?? 'table',
    config,
    checkConfig,
    configDir: dir,
    paging: { page: opts.page as number, perPage: opts.perPage as number, all: opts.all as boolean, limit: opts.limit as number },
    now: deps.now ?? (() => new Date()),
    interrupted: deps.interrupted,
    sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    commands,
    execute: executor && ((invocation, streams) => executor(invocation, { env, now: deps.now, sleep: deps.sleep, ...streams })),
  });
}

/** Colour on stdout: a terminal (or FORCE_COLOR), unless --no-color, NO_COLOR or TERM=dumb. */
function colorWanted(raw: { color?: boolean }, deps: CliDeps): boolean {
  const env = deps.env;
  // NO_COLOR counts only when it holds something: NO_COLOR= (empty) leaves colour on.
  const noColor = raw.color === false || Boolean(env.NO_COLOR);
  return !noColor && (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' ? true : Boolean(deps.stdout.isTTY) && env.TERM !== 'dumb');
}

function profileFormat(globals: GlobalOptions, env: Env, config: ConfigData): Format | undefined {
  const name = selectedProfileName(globals, env, config);
  const output = name ? config.profiles[name]?.output : undefined;
  if (output === undefined) return undefined;
  if (!(FORMATS as readonly string[]).includes(output)) {
    throw new ConfigError(`profile "${name}" in the config file: output must be one of ${FORMATS.join(', ')}; got "${output}"`, profileFixHint(name!, 'output'));
  }
  return output as Format;
}

export { CommanderError };
