/**
 * A command's help, reworded for the agent interface: a tool has inputs, not flags, and no terminal, stdin or local
 * files. Flags the tool takes become the names of its inputs (`--mr` → `mr`), commands the names of their tools
 * (`forgectl license get` → `license_get`); a parenthesis or sentence about a flag it does not take (--yes, --all,
 * --projects-file, --output-file …) or about stdin is left out, as nothing an agent can do.
 */

/** Flags in help text: `--mr`, `--no-stats`, `--allow-*` (a family of flags), `-L`. */
const FLAG = /--[a-z][a-z0-9-]*\*?|(?<![\w-])-[A-Za-z](?=[\s,;:)]|$)/g;

/** The input a flag is, by the tool's flags (`--mr` → mr, `--no-stats` → `stats: false`). */
export type FlagNames = Map<string, string>;

/** Help text with the tool's inputs for its flags, and what concerns other flags or stdin left out. */
export function forAgents(text: string, names: FlagNames, commands: ReadonlySet<string> = new Set()): string {
  const fits = (part: string): boolean => flagsIn(part).every((flag) => names.has(flag)) && !/\bstdin\b/.test(part) && !namesNoTool(part, commands);
  const kept = sentences(text)
    .map(withoutTerminalClauses)
    .filter(Boolean)
    // A bracket keeps its clauses that fit (`(… the recovery file; run \`forgectl tokens recover\`, …)` loses the second).
    .map((sentence) => sentence.replace(/(\s*)\(([^()]*)\)/g, (_, space: string, inner: string) => {
      const clauses = inner.split(/;\s+/).filter(fits);
      return clauses.length ? `${space}(${clauses.join('; ')})` : '';
    }))
    .filter(fits)
    .map((sentence) =>
      sentence
        .replace(FLAG, (flag) => names.get(flag) ?? flag)
        .replace(/`(?:forgectl )?([a-z-]+(?: [a-z-]+)+)`/g, (whole, path: string) => (commands.has(path) ? toolOf(path) : whole))
        .replace(FORGECTL_WORDS, (whole, words: string) => {
          const path = commandOf(words, commands);
          return path ? `${toolOf(path)}${words.slice(path.length)}` : whole;
        }),
    );
  return kept.join(' ').trim();
}

const toolOf = (path: string): string => path.replace(/[ -]/g, '_');

/** The words after `forgectl` in a text (`tokens rotate self --group` stops at the flag). */
const FORGECTL_WORDS = /\bforgectl ((?:[a-z][a-z-]* ?)+)/g;

/** The longest command the words begin with (`tokens rotate` of `tokens rotate self`), or undefined. */
function commandOf(words: string, commands: ReadonlySet<string>): string | undefined {
  const parts = words.trim().split(' ');
  for (let n = parts.length; n > 0; n--) {
    const path = parts.slice(0, n).join(' ');
    if (commands.has(path)) return path;
  }
  return undefined;
}

/** Whether a text names a forgectl command that no tool runs (`forgectl tokens recover`): nothing an agent can call. */
function namesNoTool(text: string, commands: ReadonlySet<string>): boolean {
  return [...text.matchAll(FORGECTL_WORDS)].some(([, words]) => {
    const group = words.trim().split(' ')[0];
    return [...commands].some((path) => path.split(' ')[0] === group) && commandOf(words, commands) === undefined;
  });
}

/**
 * Clauses that only make sense at a command line: shell pipelines and scripts (`plan && apply`), the examples of
 * --help, files a command saves and merges (a saved plan, plan merge), progress drawn at a terminal.
 */
const TERMINAL_ONLY = /`[^`]*(&&|\|\|)[^`]*`|\bexamples?\b|saved plan|\bplan merge\b/;

/** Where a command line's words say stdout and stderr, a tool's result and notice. */
const STREAM_WORDS: Array<[RegExp, string]> = [
  [/,? with progress at a terminal/g, ''],
  [/\bprints nothing\b/g, 'returns nothing'],
  [/\b(says so|is named|are named|names what was and was not updated|shown) on stderr\b/g, '$1 in the notice'],
  [/\bon stderr\b/g, 'in the notice'],
  [/\bstderr (names|says)\b/g, 'the notice $1'],
  [/\bprinted on stdout\b/g, 'returned in the result'],
  [/\bon stdout\b/g, 'in the result'],
];

/** A sentence without its clauses (split at semicolons) that only make sense at a command line, in a tool's words. */
function withoutTerminalClauses(sentence: string): string {
  const clauses = sentence.split(/;\s+/);
  const kept = clauses.filter((clause) => !TERMINAL_ONLY.test(clause));
  if (!kept.length) return '';
  let text = kept.join('; ');
  if (kept.length < clauses.length && !/[.!?]$/.test(text)) text += '.';
  for (const [pattern, replacement] of STREAM_WORDS) text = text.replace(pattern, replacement);
  return text;
}

/** A tool's description: the summary, then the help without a first sentence (or clause) that only repeats it. */
export function toolDescription(summary: string, help: string | undefined, names: FlagNames, commands: ReadonlySet<string>): string {
  const rest = sentences(help ?? '');
  const first = rest[0];
  // A first sentence that says the summary again with more (`Deletes a CI/CD variable after showing it …` after
  // `Delete a CI/CD variable`) takes its place, in the summary's mood.
  // A summary keeps its parts that concern the tool (`Change a snippet; --sync DIR makes …` → `Change a snippet`).
  const head = summary.split(/;\s*/).map((part) => forAgents(part, names, commands)).filter(Boolean).join('; ') || summary;
  const restated = first === undefined ? undefined : forAgents(inSummaryMood(first, head) ?? '', names, commands);
  if (restated) return [restated.replace(/\.$/, ''), forAgents(rest.slice(1).join(' '), names, commands)].filter(Boolean).join('. ');
  let addition = '';
  if (first && repeats(first, summary)) rest.shift();
  else if (first) {
    // A first clause that repeats the summary goes, unless what follows it continues that clause (`…, or with --mr …`);
    // what it adds in brackets or with `, with …` joins the summary (`Keeps the artifacts … (their expiry date is removed)`).
    const clause = /^([^,:;(]+?)\s*([,:;(])\s*(.+)$/.exec(first);
    if (clause && repeats(clause[1], summary)) {
      // A bracket joins only when the sentence ends after it, or after a short aside (`(…), newest first`): not when
      // the sentence goes on (`(…) on this one`, `(administrators), after naming …`).
      const joins = clause[2] === '(' ? /^[^()]*\)(, \S+( \S+){0,3})?\.?$/.test(clause[3]) : /^with\b/.test(clause[3]);
      if (joins) {
        addition = `${clause[2] === '(' ? ' (' : ', '}${forAgents(clause[3].replace(/\.$/, ''), names, commands)}`;
        rest.shift();
      } else if (clause[2] !== '(' && !/^(or|and|but|with|without|by)\b/.test(clause[3])) rest[0] = `${clause[3][0].toUpperCase()}${clause[3].slice(1)}`;
    }
  }
  const body = forAgents(rest.join(' '), names, commands);
  return [`${head.replace(/\.$/, '')}${addition}`, body].filter(Boolean).join('. ');
}

function flagsIn(text: string): string[] {
  return [...text.matchAll(FLAG)].map((match) => match[0]);
}

/** Sentences, each with its full stop. */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z(`"'-])/).map((sentence) => sentence.trim()).filter(Boolean);
}

/** The share of the words of `text` that `other` has too (`Deletes the branches …` of `Delete the branches …`). */
function shareOf(text: string, other: string): number {
  const words = (of: string) => new Set((of.toLowerCase().match(/[a-z]{3,}/g) ?? []).map((word) => word.replace(/ies$/, 'y').replace(/s$/, '').replace(/e$/, '')));
  const own = words(text);
  const theirs = words(other);
  return own.size ? [...own].filter((word) => theirs.has(word)).length / own.size : 0;
}

/** Whether most words of a sentence are words of the summary. */
const repeats = (sentence: string, summary: string): boolean => shareOf(sentence, summary) >= 0.7;

/**
 * A sentence that begins with the summary's verb (`Shows` for `Show`) and has most of the summary's words, put in
 * the summary's mood (`Show one repository storage move and its state …`); undefined for any other.
 */
function inSummaryMood(sentence: string, summary: string): string | undefined {
  const verb = /^[A-Z][a-z]+/.exec(summary)?.[0];
  const word = /^[A-Z][a-z]+/.exec(sentence)?.[0];
  const inflected = (base: string) => [`${base}s`, `${base}es`, `${base.replace(/y$/, 'ie')}s`];
  if (!verb || !word || !inflected(verb).includes(word) || shareOf(summary, sentence) < 0.75) return undefined;
  // A second verb of the summary's follows it too (`Creates …, or changes …` for `Create or change …`); any other
  // (`…; warns when …`) would stay as it is: such a sentence is left whole.
  const verbs = summary.toLowerCase().match(/[a-z]+/g) ?? [];
  const mood = `${verb}${sentence.slice(word.length)}`.replace(/\b(or|and) ([a-z]+)\b/g, (whole, conjunction: string, next: string) => {
    const base = verbs.find((candidate) => inflected(candidate).includes(next));
    return base ? `${conjunction} ${base}` : whole;
  });
  const clause = mood.replace(/\([^()]*\)/g, '').split(':')[0];
  return /\b(?:or|and)\s+(?!its\b|is\b|has\b|this\b)[a-z]+s\b|;\s*[a-z]+s\b/.test(clause) ? undefined : mood;
}

/** What the rewording of a notice knows of a tool: its name, its command and the flags its inputs stand for. */
export interface NamedTool {
  name: string;
  path: string;
  list: boolean;
  /** Each flag the tool takes (long and short) as the input that gives it: `--access-level` → access_level. */
  flags: ReadonlyMap<string, { name: string; takesValue: boolean }>;
}

/**
 * Notices and hints with a flag an agent cannot give, said in its terms (a list tool pages by cursor); applied
 * before the flags are named as inputs.
 */
const AGENT_PHRASES: Array<[RegExp, (tool: NamedTool) => string]> = [
  [/ — use --all or --limit$/, (tool) => (tool.list ? ' — pass next_cursor as cursor for the next page' : ' — this tool returns the first page')],
  [/; more exist — use --all or --limit$/, (tool) => (tool.list ? '; more exist — pass next_cursor as cursor for the next page' : '; more exist')],
  [/^hint: use --all, or --limit N$/, (tool) => (tool.list ? 'hint: this list has no page numbers: call the tool without cursor' : '')],
  [/^hint: pass --yes to confirm without a terminal$/, () => 'hint: tell the person you act for what it asks and, once they agree, call it again with confirm: true'],
];

/**
 * A notice or error of a command run by a tool, for the agent that called it: `forgectl members update … --group G`
 * becomes `members_update … group: G` where that tool exists, the calling tool's flags its inputs, and the phrases
 * above the agent's; a hint that still names a flag no tool takes, or a command no tool runs, is left out, as
 * nothing the agent can do.
 */
export function noticeForAgents(text: string, tool: NamedTool, tools: readonly NamedTool[]): string {
  const byPath = new Map(tools.map((item) => [item.path, item]));
  const lines = text.split('\n').map((line) => {
    let said = AGENT_PHRASES.reduce((done, [phrase, words]) => done.replace(phrase, () => words(tool)), line);
    let unreachable = false;
    said = said.replace(/\bforgectl ((?:[a-z][a-z-]* ?)+)([^;)]*)/g, (whole, words: string, rest: string) => {
      const parts = words.trim().split(' ');
      for (let n = parts.length; n > 0; n--) {
        const target = byPath.get(parts.slice(0, n).join(' '));
        if (target) return `${target.name}${words.slice(parts.slice(0, n).join(' ').length)}${inputsOf(rest, target, () => (unreachable = true), true)}`;
      }
      unreachable = true;
      return whole;
    });
    said = inputsOf(said, tool, () => (unreachable = true), false);
    return unreachable && said.startsWith('hint:') ? '' : said;
  });
  return lines.filter(Boolean).join('\n');
}

/**
 * The flags of a text as a tool's inputs: in a command (`withValues`) `--group acme` → `group: acme` and
 * `--protected` → `protected: true`; in prose the flag's name alone (`--mr` → mr).
 */
function inputsOf(text: string, tool: NamedTool, unknown: () => void, withValues: boolean): string {
  return text.replace(new RegExp(`(${FLAG.source})(?:[ =](?!-)(\\S+))?`, 'g'), (whole, flag: string, value: string | undefined) => {
    const input = tool.flags.get(flag);
    if (!input) {
      unknown();
      return whole;
    }
    const rest = value === undefined ? '' : ` ${value}`;
    if (!withValues || input.name.includes(':')) return `${input.name}${rest}`;
    return input.takesValue && value !== undefined ? `${input.name}: ${value}` : `${input.name}: true${rest}`;
  });
}
