import type { ArgDef, OptionDef } from './command.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../parse.js';

/** Options shared by many commands: one definition each. */

export const projectOption: OptionDef = {
  flags: '--project <id|path>',
  description: 'project ID or full path (default: the profile\'s default_project)',
};

export const groupOption: OptionDef = {
  flags: '--group <id|path>',
  description: 'group ID or full path (default: the profile\'s default_group)',
};

export const userOption: OptionDef = {
  flags: '--user <id|username>',
  description: 'user ID or username',
};

export const outputFileOption: OptionDef = {
  flags: '--output-file <path>',
  description: 'write to this file (atomically) instead of stdout; an existing file is replaced only when confirmed (--yes)',
  localFile: true,
};

/** Not offered by keyset-only lists, which still accept it to say why they refuse it. */
export const pageOption: OptionDef = { flags: '--page <n>', description: 'page to show (default 1)', parse: parseInteger('--page', 1) };

export const perPageOption: OptionDef = { flags: '--per-page <n>', description: 'records per page, 1-100', parse: parseInteger('--per-page', 1, 100) };
export const limitOption: OptionDef = { flags: '--limit <n>', description: 'stop after this many records', parse: parseInteger('--limit', 1) };

const paginationOptions: OptionDef[] = [pageOption, perPageOption, { flags: '--all', description: 'fetch every page' }, limitOption];

/** The paging options of a list command: --page only where pages have numbers (not on keyset-only lists). */
export function listOptions(list: boolean | 'keyset' | undefined): OptionDef[] {
  if (!list) return [];
  return list === 'keyset' ? paginationOptions.filter((option) => option !== pageOption) : paginationOptions;
}

/** Arguments shared by many commands: one definition each. */

export const projectArg: ArgDef = { spec: '[project]', description: 'project ID or full path (default: the profile\'s default_project)' };
export const groupArg: ArgDef = { spec: '[group]', description: 'group ID or full path (default: the profile\'s default_group)' };
/**
 * The project or group a deletion removes, a transfer or a new path moves, an archive freezes or a visibility exposes:
 * named every time, never the profile's default (a script's empty "$GROUP" with --yes would otherwise act on the default one).
 */
export type ExplicitVerb = 'delete' | 'transfer' | 'archive' | 'unarchive' | 'update';
const EXPLICIT_ACTS: Record<ExplicitVerb, string> = { delete: 'a deletion', transfer: 'a transfer', archive: 'an archive', unarchive: 'an unarchive', update: 'a change of visibility or path' };
export const deletedArg = (scope: 'project' | 'group', verb: ExplicitVerb = 'delete'): ArgDef => ({ spec: `<${scope}>`, description: `the ${scope} to ${verb}: ID or full path (never the profile's default_${scope})` });
/** The value of a deletedArg, refused when empty (an unset "$PROJECT" quoted in a script). */
export function namedForDeletion(value: string | undefined, scope: 'project' | 'group', verb: ExplicitVerb = 'delete'): string {
  if (value?.trim()) return value.trim();
  throw new UsageError(`no ${scope} given: ${EXPLICIT_ACTS[verb]} takes the ${scope} as an argument, never the profile's default_${scope}; nothing was sent`, `forgectl ${scope}s ${verb} ID|PATH`);
}
/**
 * A name given as the argument or, as older scripts give it, with --name: one of them (both only when they agree),
 * never empty; exit 2 otherwise, before anything is sent. `usage` is the command's form with the argument.
 */
export function argumentOrName(argument: string | undefined, option: string | undefined, what: string, usage: string): string {
  if (argument !== undefined && option !== undefined && argument !== option) throw new UsageError(`two ${what}s given: ${argument} and --name ${option}`, `give it once: ${usage}`);
  const name = argument ?? option;
  if (!name?.trim()) throw new UsageError(`no ${what} given`, usage);
  return name;
}
/** A commit: its SHA, or the name of a branch or tag (its head). */
export const commitArg: ArgDef = { spec: '<sha>', description: 'the commit: its SHA, or a branch or tag name for its head' };
/** A file's path in the repository. */
export const repoPathArg: ArgDef = { spec: '<path>', description: 'the file\'s path in the repository (docs/intro.md)' };
