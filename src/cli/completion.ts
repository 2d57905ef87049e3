import { globalOptions } from './program.js';
import { fleetOptionsOf } from './fleet-options.js';
import { listOptions } from './options.js';
import { choicesOf, takesList } from '../parse.js';
import type { CliDeps } from './program.js';
import { argSpec, COMPLETE_COMMAND, declaredFields, type ArgDef, type CommandDef, type Commands, type ManifestEntry, type OptionDef, type ValueKind } from './command.js';
import { configDir } from '../config/paths.js';
import { HELP_TOPICS } from './help-topics.js';
import { readConfig } from '../config/store.js';

/**
 * Shell completion as gh and cobra do it: the scripts the shells load are small and the same for every version of
 * forgectl; at each TAB they ask `forgectl __complete WORD… CURRENT` for the candidates, which reads only the manifest
 * and the definition of the one command the words name. So completion cannot go stale, whatever commands are added.
 */

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export interface CompletionOption {
  /** '--output' and '-o'. */
  names: string[];
  description: string;
  /** Absent for a flag that takes no value. */
  value?: ValueKind;
  /** Whether the value may be left out ('--save-to-profile [name]'): the next word is then not taken for it. */
  optionalValue?: boolean;
}

/** Values that name a file or folder: the placeholder says so, or the option is one of the file options. */
const FILE_VALUE = /<(file|path|dir|folder)>|^--[\w-]*-(file|dir|out)\b|^--(input|state|key-file)\b/;

export function completionOption(def: OptionDef): CompletionOption {
  const names = def.flags.split(/[ ,|]+/).filter((f) => f.startsWith('-'));
  const long = names.find((name) => name.startsWith('--')) ?? names[0];
  const option: CompletionOption = { names, description: def.description.split('\n')[0] };
  if (!/[<[]/.test(def.flags)) return option;
  if (!/</.test(def.flags)) option.optionalValue = true;
  const choices = def.choices ?? choicesOf(def.parse);
  if (choices) option.value = takesList(def.parse) ? { values: choices, list: true } : { values: choices };
  else if (long === '--profile') option.value = 'profile';
  else if (FILE_VALUE.test(def.flags)) option.value = 'file';
  else option.value = 'text';
  return option;
}

const HELP_OPTION: CompletionOption = { names: ['--help', '-h'], description: 'display help for command' };
const HELP_COMMAND: Candidate = { value: 'help', description: 'help for a command, or a topic' };

/** A candidate for the word being completed, with what it is (shown by zsh and fish). */
export interface Candidate {
  value: string;
  description?: string;
}

/** What the shell does with the word: offer the candidates, offer file names, or nothing (a free-text value). */
export interface Completion {
  candidates: Candidate[];
  directive?: 'files' | 'none';
}

/** The options a command takes (its own, its paging, its fleet selector, then the global ones and --help). */
export function commandOptions(def: CommandDef | undefined): CompletionOption[] {
  const own = def ? [...(def.options ?? []), ...listOptions(def.list), ...fleetOptionsOf(def)] : [];
  // --fields offers what the command's records are declared to have (before a command, nothing is known).
  const fields = def && (declaredFields(def) ?? def.columns);
  const global = globalOptions.map(completionOption).map((option) => (fields?.length && option.names.includes('--fields') ? { ...option, value: { values: fields, list: true } } : option));
  return [...own.map(completionOption), ...global, HELP_OPTION];
}

/** The words below a command path: its subcommands, each with its summary (a group's own, or the command's). */
function subcommandsOf({ manifest, groups }: Commands, path: string): Candidate[] {
  const below = new Map<string, string>();
  for (const entry of manifest) {
    if (path && !entry.path.startsWith(`${path} `)) continue;
    const word = entry.path.split(' ')[path ? path.split(' ').length : 0];
    const child = path ? `${path} ${word}` : word;
    // A command's own summary, else its group's (plan is a command with plan merge below it).
    if (child === entry.path || !below.has(word)) below.set(word, child === entry.path ? entry.summary : (groups[child] ?? ''));
  }
  return [...below].map(([value, description]) => ({ value, description }));
}

/** The option a word names ('--output', '-o', '--output=json'), among those given. */
const optionNamed = (options: CompletionOption[], word: string): CompletionOption | undefined => options.find((option) => option.names.includes(word.split('=')[0]));

/** The candidates for a value of this kind; `prefix` is put before each (a list's earlier values, or '--name='). */
function valueCompletion(kind: ValueKind, typed: string, prefix: string, profiles: () => string[]): Completion {
  if (kind === 'file') return { candidates: [], directive: 'files' };
  if (kind === 'text') return { candidates: [], directive: 'none' };
  let before = prefix;
  let values: readonly string[];
  if (kind === 'profile') values = profiles();
  else {
    values = kind.values;
    if (kind.list && typed.includes(',')) before += typed.slice(0, typed.lastIndexOf(',') + 1);
  }
  const rest = typed.slice(before.length - prefix.length);
  return { candidates: values.filter((value) => value.startsWith(rest)).map((value) => ({ value: `${before}${value}` })) };
}

/**
 * What the values of the argument after `before` are (the last argument repeats when it takes several), where known.
 */
function argumentValues(args: Array<string | ArgDef>, before: string[]): ValueKind | undefined {
  const last = args[args.length - 1];
  const arg = before.length < args.length ? args[before.length] : last !== undefined && argSpec(last).includes('...') ? last : undefined;
  if (arg === undefined || typeof arg === 'string') return undefined;
  if (typeof arg.values === 'function') return arg.values(before);
  return arg.values ?? (arg.localFile === true ? 'file' : undefined);
}

/**
 * The completion of the last word of `words` (the words after `forgectl`, the last one the word being typed, maybe
 * empty): the command path the others name, then a value of the option before it, an option, or a subcommand.
 * Loads the definition of the command named, and no other.
 */
export async function complete(commands: Commands, given: string[], profiles: () => string[]): Promise<Completion> {
  // `forgectl help WORDS` names a command as the words alone would, or a topic.
  const helping = given.length > 1 && given[0] === 'help';
  const words = helping ? given.slice(1) : given;
  const typed = words[words.length - 1] ?? '';
  let path = '';
  let entry: ManifestEntry | undefined;
  let def: CommandDef | undefined;
  let options = commandOptions(undefined);
  let valueOf: CompletionOption | undefined;
  // The command's arguments before the word being typed.
  const argsBefore: string[] = [];
  for (const word of words.slice(0, -1)) {
    if (valueOf) {
      valueOf = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionNamed(options, word);
      valueOf = option?.value && !option.optionalValue && !word.includes('=') ? option : undefined;
      continue;
    }
    const next = path ? `${path} ${word}` : word;
    if (!commands.manifest.some((candidate) => candidate.path === next || candidate.path.startsWith(`${next} `))) {
      if (def) argsBefore.push(word);
      continue;
    }
    path = next;
    entry = commands.manifest.find((candidate) => candidate.path === path);
    def = entry && (await entry.load()).default;
    options = commandOptions(def);
  }
  if (valueOf?.value) return valueCompletion(valueOf.value, typed, '', profiles);
  const assigned = /^(--[\w-]+)=/.exec(typed);
  if (assigned) {
    const option = optionNamed(options, assigned[1]);
    return option?.value ? valueCompletion(option.value, typed.slice(assigned[0].length), assigned[0], profiles) : { candidates: [] };
  }
  const subcommands = subcommandsOf(commands, path);
  if (typed.startsWith('-') || (def && !subcommands.length)) {
    // The argument being typed, where its values are known (profile names, shells, files of this machine): those.
    const values = typed.startsWith('-') ? undefined : argumentValues(def?.args ?? [], argsBefore);
    if (values) return valueCompletion(values, typed, '', profiles);
    const offered = options.flatMap((option) => option.names.filter((name) => name.startsWith('--') && name.startsWith(typed)).map((value) => ({ value, description: option.description })));
    return { candidates: offered };
  }
  const topics = !path ? (helping ? Object.entries(HELP_TOPICS).map(([value, topic]) => ({ value, description: topic.summary })) : [HELP_COMMAND]) : [];
  return { candidates: [...subcommands, ...topics].filter((candidate) => candidate.value.startsWith(typed)) };
}

/** The profile names of the config file, or none when it cannot be read (completion never fails). */
function profileNames(deps: Pick<CliDeps, 'env'>): string[] {
  try {
    return Object.keys(readConfig(configDir(deps.env)).profiles);
  } catch {
    return [];
  }
}

/**
 * `forgectl __complete WORD… CURRENT`: one candidate a line, `value<TAB>description`, then a line saying what the
 * shell does besides: `:files` (complete file names), `:none` (a free-text value: nothing), or `:`.
 */
export async function runCompletion(commands: Commands, words: string[], deps: Pick<CliDeps, 'env' | 'stdout'>): Promise<number> {
  const { candidates, directive } = await complete(commands, words.length ? words : [''], () => profileNames(deps));
  const lines = candidates.map((candidate) => (candidate.description ? `${candidate.value}\t${candidate.description.replace(/\s+/g, ' ')}` : candidate.value));
  deps.stdout.write(`${[...lines, `:${directive ?? ''}`].join('\n')}\n`);
  return 0;
}

const HEADER = (shell: Shell): string =>
  `# ${shell} completion for forgectl, written by \`forgectl completion ${shell}\`. It asks forgectl itself for the
# candidates at each TAB (forgectl __complete WORD… CURRENT), so it never needs regenerating.
`;

const BASH = `_forgectl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" line directive="" prefix="" last joined=0 i
  local -a words=()
  # bash splits --name=value at '=': join the parts back, and give bash only what follows '='.
  for ((i = 1; i <= COMP_CWORD; i++)); do
    if ((joined)); then words[\${#words[@]}-1]+="\${COMP_WORDS[i]}"; joined=0
    elif [[ \${COMP_WORDS[i]} == = && \${COMP_WORDS[i-1]} == --* ]]; then words[\${#words[@]}-1]+="="; joined=1
    else words+=("\${COMP_WORDS[i]}"); fi
  done
  last="\${words[\${#words[@]}-1]}"
  if [[ $last == --*=* && $cur != "$last" ]]; then prefix="\${last%%=*}="; cur="\${last#*=}"; fi
  COMPREPLY=()
  while IFS= read -r line; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      *) line="\${line%%$'\\t'*}"; COMPREPLY+=("\${line#"$prefix"}") ;;
    esac
  done < <(forgectl ${COMPLETE_COMMAND} "\${words[@]}" 2>/dev/null)
  if [[ "$directive" == files ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _forgectl forgectl
`;

// The file works both ways: autoloaded from $fpath (its body runs on the first TAB and must complete then) and
// sourced (it registers the function).
const ZSH = `_forgectl() {
  local line directive=""
  local -a described plain
  for line in "\${(@f)$(forgectl ${COMPLETE_COMMAND} "\${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    case "$line" in
      :*) directive="\${line#:}" ;;
      *$'\\t'*) described+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}") ;;
      ?*) plain+=("$line") ;;
    esac
  done
  case "$directive" in
    files) _files ;;
    none) _message 'a value' ;;
    *)
      (( \${#described} )) && _describe -t forgectl 'forgectl' described
      (( \${#plain} )) && compadd -- "\${plain[@]}"
      ;;
  esac
}
if [[ "\${funcstack[1]}" == "_forgectl" ]]; then
  _forgectl "$@"
else
  compdef _forgectl forgectl
fi
`;

const FISH = `function __forgectl_complete
  set -l lines (forgectl ${COMPLETE_COMMAND} (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
  if contains -- :files $lines
    __fish_complete_path (commandline -ct)
    return
  end
  string match -v -r '^:' -- $lines
end
complete -c forgectl -f -a '(__forgectl_complete)'
`;

/** The script a shell loads: the same for every version of forgectl. */
export function completionScript(shell: Shell): string {
  if (shell === 'bash') return `${HEADER('bash')}${BASH}`;
  if (shell === 'zsh') return `#compdef forgectl\n${HEADER('zsh')}${ZSH}`;
  return `${HEADER('fish')}${FISH}`;
}
