/**
 * The manual's model: every command as its `--help` shows it (usage, description, arguments, options with their
 * defaults and values, examples), read from the same command tree the help is rendered from (src/cli/program.ts
 * builds it, as for a run), and the help topics as blocks. The reference pages (markdown.ts) and the man pages
 * (roff.ts) are both written from it, so neither can say something the help does not.
 */
import type { Command, Help, Option } from 'commander';
import type { Commands, OptionDef } from '../../src/cli/command.js';
import { fleetKind, fleetOptionsOf } from '../../src/cli/fleet-options.js';
import { parseDeferred } from '../../src/cli/help-layout.js';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { listOptions } from '../../src/cli/options.js';
import { attachDefinition, buildProgram, globalOptions, helpSection } from '../../src/cli/program.js';
import { choicesOf, takesList } from '../../src/parse.js';

export interface ManualOption {
  /** As help shows it: '-o, --output <format>'. */
  term: string;
  /** As help shows it, with what commander adds (defaults, "required: "). */
  description: string;
  /** The values it takes, when it takes one of a list (with list, several, comma-separated). */
  values?: readonly string[];
  list?: boolean;
}

export interface ManualCommand {
  /** 'tokens rotate'. */
  path: string;
  summary: string;
  /** 'forgectl tokens rotate [options] <id>'. */
  usage: string;
  /** The paragraphs of the description after the summary. */
  description: string[];
  args: Array<{ term: string; description: string }>;
  /** The command's options by their help heading ('Options', 'Fleet (instead of --project)'), as help groups them. */
  options: Array<{ heading: string; options: ManualOption[] }>;
  examples: string[];
  /** The exit codes that mean something particular for this command. */
  exits: Array<{ code: number; meaning: string }>;
  /** The command above it, the others of its group, and those below it. */
  related: string[];
}

/** A top-level word of the command line and what is below it: a group of commands, or one command ('api'). */
export interface ManualGroup {
  name: string;
  summary: string;
  /** Its heading in the root help ('Tokens'). */
  section: string;
  /** Its commands, in the manifest's order (for a one-command group, the command itself). */
  commands: ManualCommand[];
  /** Summaries of the groups below it ('mirror pull'). */
  subgroups: Record<string, string>;
}

/** One block of a help topic: a paragraph, a term with its description, or example lines kept as written. */
export type TopicBlock = { paragraph: string; indent: number } | { term: string; description: string } | { example: string[] };

export interface ManualTopic {
  name: string;
  summary: string;
  title: string;
  /** Groups of blocks, as the topic separates them with blank lines. */
  groups: TopicBlock[][];
}

export interface Manual {
  version: string;
  description: string;
  globalOptions: ManualOption[];
  groups: ManualGroup[];
  topics: ManualTopic[];
}

/** What commander's help (as forgectl configures it) says of an option, and the values its parser names. */
function manualOption(option: Option, help: Help, defs: OptionDef[]): ManualOption {
  const def = defs.find((candidate) => candidate.flags === option.flags);
  const values = def && (def.choices ?? choicesOf(def.parse));
  const described: ManualOption = { term: help.optionTerm(option), description: help.optionDescription(option) };
  // Values the description does not name already (commander names its own choices).
  const words = new Set(described.description.split(/[^\w-]+/));
  if (values && !option.argChoices && !values.every((value) => words.has(value))) Object.assign(described, { values }, takesList(def.parse) ? { list: true } : {});
  return described;
}

/** The exit codes a command gives besides those of every command: its own, and 9 for a run over many projects. */
function exitsOf(path: string, def: Awaited<ReturnType<Commands['manifest'][number]['load']>>['default']): ManualCommand['exits'] {
  const exits = Object.entries(def.exits ?? {}).map(([code, meaning]) => ({ code: Number(code), meaning }));
  if (fleetKind(def) && !exits.some((exit) => exit.code === 9)) exits.push({ code: 9, meaning: `some projects of a run over many projects failed (${path} went on with the others, or stopped, as --continue-on-error says)` });
  return exits.sort((a, b) => a.code - b.code);
}

/** A command as its help shows it: the tree built for running it, its definition attached. */
async function manualCommand(commands: Commands, entry: Commands['manifest'][number]): Promise<ManualCommand> {
  const { leaves } = buildProgram(commands, undefined, entry);
  const leaf: Command = leaves.get(entry.path)!;
  const def = (await entry.load()).default;
  attachDefinition(leaf, def);
  const help = leaf.createHelp();
  const defs = [...(def.options ?? []), ...listOptions(def.list), ...fleetOptionsOf(def)];
  const options = new Map<string, ManualOption[]>();
  for (const option of help.visibleOptions(leaf)) {
    const heading = (option.helpGroupHeading ?? 'Options:').replace(/:$/, '');
    options.set(heading, [...(options.get(heading) ?? []), manualOption(option, help, defs)]);
  }
  // Related: the command above it (plan, for plan merge), the others of its group, and those below it.
  const parentOf = (path: string) => path.split(' ').slice(0, -1).join(' ');
  const parent = parentOf(entry.path);
  const related = commands.manifest.filter((other) => other !== entry && ((parent && (other.path === parent || parentOf(other.path) === parent)) || other.path.startsWith(`${entry.path} `)));
  return {
    path: entry.path,
    summary: entry.summary,
    usage: help.commandUsage(leaf),
    description: def.description ? def.description.split(/\n\s*\n/).map((paragraph) => paragraph.trim()) : [],
    args: help.visibleArguments(leaf).map((argument) => ({ term: help.argumentTerm(argument), description: help.argumentDescription(argument) })),
    options: [...options].map(([heading, list]) => ({ heading, options: list })),
    examples: [...def.examples],
    exits: exitsOf(entry.path, def),
    related: related.map((other) => other.path),
  };
}

/** A help topic's text (paragraphs, terms and examples, its layout deferred) as blocks. */
function manualTopic(name: string, topic: { summary: string; text: string }): ManualTopic {
  const [title, ...rest] = topic.text.trimEnd().split('\n\n');
  const groups = rest.map((group) => {
    const blocks: TopicBlock[] = [];
    for (const span of parseDeferred(group)) {
      if ('paragraph' in span) blocks.push({ paragraph: span.paragraph, indent: span.indent });
      else if ('term' in span) blocks.push({ term: span.term, description: span.description });
      else {
        const lines = span.text.split('\n').filter((line) => line.trim());
        if (!lines.length) continue;
        const last = blocks[blocks.length - 1];
        if (last && 'example' in last) last.example.push(...lines.map((line) => line.trim()));
        else blocks.push({ example: lines.map((line) => line.trim()) });
      }
    }
    return blocks;
  });
  return { name, summary: topic.summary, title, groups };
}

/** The whole manual, from the command tree: every command's definition is loaded. */
export async function buildManual(commands: Commands, version: string): Promise<Manual> {
  const { program } = buildProgram(commands);
  const help = program.createHelp();
  // The options every command takes: the root's, less --version (the program's own), as a command's help lists them.
  const globals = program.options.filter((option) => option.long !== '--version');
  const groups = new Map<string, ManualGroup>();
  for (const entry of commands.manifest) {
    const name = entry.path.split(' ')[0];
    let group = groups.get(name);
    if (!group) {
      const subgroups = Object.fromEntries(Object.entries(commands.groups).filter(([path]) => path.startsWith(`${name} `)));
      group = { name, summary: commands.groups[name] ?? entry.summary, section: helpSection(name).heading.replace(/:$/, ''), commands: [], subgroups };
      groups.set(name, group);
    }
    group.commands.push(await manualCommand(commands, entry));
  }
  const ordered = [...groups.values()].sort((a, b) => helpSection(a.name).rank - helpSection(b.name).rank || helpSection(a.name).place - helpSection(b.name).place);
  return {
    version,
    description: program.description(),
    globalOptions: globals.map((option) => manualOption(option, help, globalOptions)),
    groups: ordered,
    topics: Object.entries(HELP_TOPICS).map(([name, topic]) => manualTopic(name, topic)),
  };
}
