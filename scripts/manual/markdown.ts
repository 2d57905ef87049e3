/**
 * The reference pages (docs/commands/): one Markdown page per command, an index by group, and a page per help
 * topic, written from the manual's model (model.ts). `npm run docs` writes them; a test fails when they are stale.
 */
import { posix } from 'node:path';
import type { Manual, ManualCommand, ManualOption, ManualTopic } from './model.js';

const GENERATED = '<!-- Generated from the command tree by `npm run docs`: edit the command, not this page. -->';

/** The file of a command's page, under docs/commands/: 'tokens rotate' → 'tokens/rotate.md'. */
export const commandFile = (path: string): string => `${path.split(' ').join('/')}.md`;
/** The file of a help topic's page: 'exit-codes' → 'help/exit-codes.md'. */
export const topicFile = (name: string): string => `help/${name}.md`;
export const INDEX_FILE = 'README.md';

/** A link from one page to another, both named by their file under docs/commands/. */
const link = (from: string, to: string, anchor = ''): string => `${posix.relative(posix.dirname(from), to) || posix.basename(to)}${anchor}`;

/** Text as Markdown: `code` kept, --options set as code, the characters Markdown would read as markup escaped. */
export function inline(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .split(/(`[^`]*`|(?<![\w/-])--[a-zA-Z][\w-]*(?:[ =]<[^>\s]+>)?)/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[\\*<>[\]]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (c) => `\\${c}`);
      return part.startsWith('`') ? part : `\`${part}\``;
    })
    .join('');
}

/** A fenced block whose fence no line of it can close. */
function fenced(language: string, lines: string[]): string {
  const longest = Math.max(2, ...lines.map((line) => /^`+/.exec(line)?.[0].length ?? 0));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${lines.join('\n')}\n${fence}`;
}

function optionLine(option: ManualOption): string {
  const values = option.values ? ` (${option.list ? 'any of, comma-separated' : 'one of'}: ${option.values.map((value) => `\`${value}\``).join(', ')})` : '';
  return `- \`${option.term}\`: ${inline(option.description)}${values}`;
}

/** One command's page. */
export function commandPage(manual: Manual, command: ManualCommand): string {
  const file = commandFile(command.path);
  const group = command.path.split(' ')[0];
  const parts = [GENERATED, `# forgectl ${command.path}`, inline(command.summary), fenced('text', [command.usage]), ...command.description.map(inline)];
  if (command.args.length) parts.push('## Arguments', command.args.map((arg) => `- \`${arg.term}\`: ${inline(arg.description)}`).join('\n'));
  for (const { heading, options } of command.options) parts.push(`## ${inline(heading)}`, options.map(optionLine).join('\n'));
  const globals = manual.globalOptions.map((option) => `\`${option.term}\``).join(', ');
  parts.push('## Global options', `${globals}: the options of every command ([what each does](${link(file, INDEX_FILE, '#global-options')})).`);
  parts.push('## Examples', fenced('sh', command.examples));
  const exits = command.exits.map((exit) => `- \`${exit.code}\`: ${inline(exit.meaning)}`);
  parts.push('## Exit status', ...(exits.length ? [exits.join('\n')] : []), `${exits.length ? 'Otherwise, the' : 'The'} exit codes of every command: [exit codes](${link(file, topicFile('exit-codes'))}).`);
  const related = command.related.map((path) => `[forgectl ${path}](${link(file, commandFile(path))})`);
  parts.push('## See also', [...related, `[all ${group} commands](${link(file, INDEX_FILE, `#forgectl-${group}`)})`].join(', '));
  return `${parts.join('\n\n')}\n`;
}

/** The index: the global options, the help topics, and every command by group, in the root help's order. */
export function indexPage(manual: Manual): string {
  const parts = [GENERATED, '# Command reference', inline(manual.description)];
  parts.push(
    'Each page here is what `forgectl COMMAND --help` shows, and more of it: the values an option takes, the exit codes that mean something particular for the command, and the commands beside it. The same pages are the man pages installed with forgectl (`man forgectl`, `man forgectl-tokens`).',
  );
  parts.push('## Global options', 'Every command takes these.', manual.globalOptions.map(optionLine).join('\n'));
  parts.push('## Help topics', manual.topics.map((topic) => `- [forgectl help ${topic.name}](${topicFile(topic.name)}): ${inline(topic.summary)}`).join('\n'));
  let section = '';
  for (const group of manual.groups) {
    if (group.section !== section) parts.push(`## ${inline((section = group.section))}`);
    const lines = group.commands.map((command) => `- [forgectl ${command.path}](${commandFile(command.path)}): ${inline(command.summary)}`);
    parts.push(`### forgectl ${group.name}`, inline(group.summary), lines.join('\n'));
  }
  return `${parts.join('\n\n')}\n`;
}

/** A help topic's page: its paragraphs, terms and examples. */
export function topicPage(topic: ManualTopic): string {
  const file = topicFile(topic.name);
  const parts = [GENERATED, `# ${inline(topic.title)}`, `\`forgectl help ${topic.name}\`: ${inline(topic.summary)}.`];
  for (const group of topic.groups) {
    const terms: string[] = [];
    const flush = () => void (terms.length && parts.push(terms.splice(0).join('\n')));
    for (const block of group) {
      if ('term' in block) {
        terms.push(`- \`${block.term}\`: ${inline(block.description)}`);
        continue;
      }
      flush();
      parts.push('example' in block ? fenced('sh', block.example) : inline(block.paragraph));
    }
    flush();
  }
  parts.push(`[All commands and topics](${link(file, INDEX_FILE)})`);
  return `${parts.join('\n\n')}\n`;
}

/** Every page, by its file under docs/commands/. */
export function referencePages(manual: Manual): Map<string, string> {
  const pages = new Map<string, string>([[INDEX_FILE, indexPage(manual)]]);
  for (const group of manual.groups) for (const command of group.commands) pages.set(commandFile(command.path), commandPage(manual, command));
  for (const topic of manual.topics) pages.set(topicFile(topic.name), topicPage(topic));
  return pages;
}
