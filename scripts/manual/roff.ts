/**
 * The man pages, written from the manual's model (model.ts) in the man macros of roff: forgectl(1), with the global
 * options and the help topics (environment, exit status, output formats), and forgectl-GROUP(1) for every top-level
 * group or command (`man forgectl-tokens`), each holding its commands as `--help` shows them. scripts/build.mjs
 * writes them into dist/man/; package.json's "man" lists them, so `npm install -g` links them where man finds them.
 */
import type { Manual, ManualCommand, ManualGroup, ManualOption, ManualTopic } from './model.js';

/** The page's file: forgectl.1, forgectl-tokens.1. */
export const manFile = (group?: string): string => `${group ? `forgectl-${group}` : 'forgectl'}.1`;

/**
 * Text for roff: a backslash printed as one, a hyphen as a hyphen-minus (so options can be copied), a line that would
 * start with a control character made text, and line breaks inside a paragraph joined.
 */
export function roffText(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\\/g, '\\e').replace(/-/g, '\\-').replace(/^[.']/, '\\&$&');
}

/** Lines kept as written (examples): each escaped on its own. */
const verbatim = (lines: string[]): string => ['.RS 4', '.nf', ...lines.map((line) => roffText(line)), '.fi', '.RE'].join('\n');

const bold = (text: string): string => `\\fB${roffText(text)}\\fR`;

const heading = (text: string): string => `.SH ${roffText(text.toUpperCase())}`;

/** A term and its description, as a tagged paragraph. */
const item = (term: string, description: string): string => `.TP\n${bold(term)}\n${roffText(description)}`;

function optionItem(option: ManualOption): string {
  const values = option.values ? ` (${option.list ? 'any of, comma-separated' : 'one of'}: ${option.values.join(', ')})` : '';
  return item(option.term, `${option.description}${values}`);
}

const header = (manual: Manual, name: string): string => `.TH ${roffText(name.toUpperCase())} 1 "" "forgectl ${roffText(manual.version)}" "forgectl manual"`;

/** A command, as a subsection of its group's page. */
function commandSection(command: ManualCommand): string {
  const lines = [`.SS ${roffText(`forgectl ${command.path}`)}`, `.B ${roffText(command.usage)}`, '.PP', roffText(command.summary)];
  for (const paragraph of command.description) lines.push('.PP', roffText(paragraph));
  if (command.args.length) lines.push('.PP', 'Arguments:', ...command.args.map((arg) => item(arg.term, arg.description)));
  for (const { heading: title, options } of command.options) lines.push('.PP', `${roffText(title)}:`, ...options.map(optionItem));
  lines.push('.PP', 'Examples:', verbatim(command.examples));
  if (command.exits.length) lines.push('.PP', 'Exit status (besides that of every command):', ...command.exits.map((exit) => item(String(exit.code), exit.meaning)));
  return lines.join('\n');
}

function groupPage(manual: Manual, group: ManualGroup): string {
  const only = group.commands.length === 1 && group.commands[0].path === group.name;
  const lines = [header(manual, `forgectl-${group.name}`), heading('name'), `forgectl\\-${roffText(group.name)} \\- ${roffText(group.summary)}`, heading('synopsis')];
  lines.push(group.commands.map((command) => `.B ${roffText(command.usage)}`).join('\n.br\n'));
  lines.push(heading('description'), roffText(group.summary));
  if (!only) {
    lines.push('.PP', 'Commands:');
    lines.push(...group.commands.map((command) => item(`forgectl ${command.path}`, command.summary)));
  }
  lines.push(heading(only ? 'command' : 'commands'), ...group.commands.map(commandSection));
  lines.push(heading('global options'), 'Every command also takes the options of forgectl(1): ' + roffText(manual.globalOptions.map((option) => option.term).join(', ')) + '.');
  lines.push(heading('see also'), `${bold('forgectl')}(1)`);
  return `${lines.join('\n')}\n`;
}

/** The section of forgectl(1) a help topic becomes. */
const TOPIC_SECTIONS: Record<string, string> = { environment: 'environment', 'exit-codes': 'exit status', formatting: 'output' };

function topicSection(topic: ManualTopic): string {
  const lines = [heading(TOPIC_SECTIONS[topic.name] ?? topic.name.replace(/-/g, ' ')), `${roffText(topic.title)} (forgectl help ${roffText(topic.name)}).`];
  for (const group of topic.groups) {
    lines.push('.PP');
    for (const block of group) {
      if ('term' in block) lines.push(item(block.term, block.description));
      else if ('example' in block) lines.push(verbatim(block.example));
      else lines.push(...(lines[lines.length - 1] === '.PP' ? [] : ['.PP']), roffText(block.paragraph));
    }
  }
  return lines.join('\n');
}

function mainPage(manual: Manual): string {
  const lines = [header(manual, 'forgectl'), heading('name'), `forgectl \\- ${roffText(manual.description)}`];
  lines.push(heading('synopsis'), '.B forgectl', '.I command', '[\\fIoptions\\fR]', '.br', '.B forgectl help', '[\\fIcommand\\fR|\\fItopic\\fR]');
  lines.push(heading('description'), roffText(`${manual.description}. Each group of commands has a page of its own: man forgectl-GROUP (man forgectl-tokens); forgectl COMMAND --help shows the same text for one command.`));
  lines.push(heading('commands'));
  let section = '';
  for (const group of manual.groups) {
    if (group.section !== section) lines.push(`.SS ${roffText((section = group.section))}`);
    lines.push(item(group.name, `${group.summary}; see forgectl-${group.name}(1).`));
  }
  lines.push(heading('global options'), 'Every command takes these:', ...manual.globalOptions.map(optionItem));
  lines.push(...manual.topics.map(topicSection));
  lines.push(heading('files'), item('$FORGECTL_CONFIG_DIR/config.json', 'the profiles (default ~/.config/forgectl/config.json, mode 0600 in a 0700 folder)'));
  lines.push(heading('see also'), manual.groups.map((group) => `${bold(`forgectl-${group.name}`)}(1)`).join(',\n'));
  return `${lines.join('\n')}\n`;
}

/** Every man page, by its file name. */
export function manPages(manual: Manual): Map<string, string> {
  return new Map([[manFile(), mainPage(manual)], ...manual.groups.map((group): [string, string] => [manFile(group.name), groupPage(manual, group)])]);
}
