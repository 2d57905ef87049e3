import { ApiError } from '../errors.js';
import { shellQuote } from '../parse.js';

/**
 * What a verb of one record of a declared resource (get, update, delete) says of its records, for its 404: the
 * records' noun, and the options that say where the records live (--project, --group, a scope such as --mr).
 */
export interface RecordLookup {
  /** The records' noun in the plural ("webhooks"). */
  nouns: string;
  /** Each option's flag, and the key of its value in the command's options. */
  placement: Array<{ flag: string; key: string }>;
}

/** The 404 of the place itself: the list of its records would answer it too, so it gets the search for the place instead. */
const PLACE_NOT_FOUND = /^404 (Project|Group|Namespace|User)\b.* Not Found$/;
const PLACE_LISTS: Record<string, string> = { Project: 'projects', Group: 'groups' };

/**
 * The hint of a project or group that is not there (or not visible to the caller): the list that finds it by name,
 * from the path the request named (`/groups/acme%2Fplatfrom/members` → `groups list --search platfrom`).
 */
function placeHint(error: ApiError): string | undefined {
  const noun = PLACE_LISTS[/^404 (\w+)/.exec(error.message)?.[1] ?? ''];
  const segment = error.path.split('?')[0].split('/')[2];
  if (!noun || !segment) return undefined;
  const name = decodeURIComponent(segment).split('/').pop() ?? '';
  if (!name || /^\d+$/.test(name)) return `forgectl ${noun} list lists the ${noun} you can see`;
  return `forgectl ${noun} list --search ${shellQuote(name)} lists the ${noun} you can see whose name or path holds it`;
}

/**
 * A 404 of one record (`hooks get 77 --project acme/api`), given the hint that names the list of the same place
 * (`forgectl hooks list --project acme/api lists its webhooks`) where the command's group has a list verb; a 404 of
 * the place itself (no such project or group), the hint that searches for it. Any other error, or a 404 already
 * explained, is left as it is.
 */
export function explainNotFound(error: unknown, command: { path: string; record?: RecordLookup }, opts: Record<string, unknown>, hasCommand: (path: string) => boolean): unknown {
  if (error instanceof ApiError && error.status === 404 && error.hint === undefined && PLACE_NOT_FOUND.test(error.message)) {
    const hint = placeHint(error);
    return hint ? error.explained(error.message, hint) : error;
  }
  if (!isRecordNotFound(error) || !command.record) return error;
  const list = listCommand(command.path, command.record.placement, opts, hasCommand);
  return list ? error.explained(error.message, `${list} lists its ${command.record.nouns}`) : error;
}

/** A 404 of a record, not yet explained, and not one of the place itself (the list would answer it too). */
export function isRecordNotFound(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 404 && error.hint === undefined && !PLACE_NOT_FOUND.test(error.message);
}

/**
 * The list command of a verb's group with the placement options given (`forgectl hooks list --project acme/api`;
 * a repeated option once per value), or undefined where the group has no list verb.
 */
export function listCommand(path: string, placement: RecordLookup['placement'], opts: Record<string, unknown>, hasCommand: (path: string) => boolean): string | undefined {
  const list = `${path.split(' ').slice(0, -1).join(' ')} list`;
  if (!hasCommand(list)) return undefined;
  const where = placement.flatMap(({ flag, key }) => {
    const value = opts[key];
    if (value === undefined || value === false) return [];
    if (value === true) return [flag];
    return (Array.isArray(value) ? value : [value]).map((item) => `${flag} ${shellQuote(String(item))}`);
  });
  return `forgectl ${[list, ...where].join(' ')}`;
}
