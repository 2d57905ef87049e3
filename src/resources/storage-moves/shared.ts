import type { Context, OptionDef } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { parseChoice, parseInteger } from '../../parse.js';
import type { ListResult } from '../../api/paginate.js';
import type { RecordOf } from '../../api/fields.js';
import { MOVE_KINDS, storageMoves } from './resource.js';

/** Repository storage moves (document 3; api-facts §1.17): one API shape for projects, snippets and group wikis. */

export const MOVE_TYPES = MOVE_KINDS;
export type MoveType = (typeof MOVE_TYPES)[number];

/** A move as the service presents it: the item of its kind only (the others absent), and what else it adds. */
export type StorageMove = Omit<RecordOf<typeof storageMoves>, MoveType> & Partial<Pick<RecordOf<typeof storageMoves>, MoveType>> & Record<string, unknown>;

export const FINISHED = 'finished';
/** Terminal states other than finished: the move did not complete (cleanup failed: moved, old copy left). */
export const FAILED_STATES = ['failed', 'cleanup failed'];

/** --type: required to schedule moves; reading them defaults to project moves, for every reading command alike. */
export const typeOption = (required: boolean): OptionDef => ({
  flags: '--type <type>',
  description: 'what moves: project, snippet or group (group wikis, Premium)',
  parse: parseChoice('--type', MOVE_TYPES),
  ...(required ? { required } : { default: 'project' }),
});

export const itemOption: OptionDef = {
  flags: '--id <id|path>',
  description: 'one project (ID or full path), snippet (ID) or group (ID or full path)',
};

/** The item in a path: snippets only have numeric IDs, projects and groups also take full paths. */
export function itemId(type: MoveType, value: string): string {
  if (type === 'snippet') return String(parseInteger('--id (a snippet ID)', 1)(value));
  if (!value.trim()) throw new UsageError('--id must not be empty');
  return value;
}

export function parseMoveId(value: string): number {
  return parseInteger('move ID', 1)(value);
}

/** The route parameter naming the moved item of each type. */
const ITEM_PARAM: Record<MoveType, string> = { project: 'project', snippet: 'snippet_id', group: 'group' };

/**
 * A declared route of the moves of a type with its parameters: the instance's moves (`GET
 * /project_repository_storage_moves`), or one item's (`GET /projects/{project}/repository_storage_moves`) when
 * `item` is given.
 */
export function moveRoute(type: MoveType, verb: 'list' | 'get' | 'schedule', item?: string, moveId?: number): [string, Record<string, unknown>] {
  const { routes } = storageMoves.parents[type];
  const route = item === undefined
    ? { list: routes.list, get: routes.get, schedule: routes.scheduleAll }[verb]
    : { list: routes.listOfItem, get: routes.getOfItem, schedule: routes.schedule }[verb];
  return [route, { [ITEM_PARAM[type]]: item, move_id: moveId }];
}

/** The moved item as --id takes it: project path, snippet ID, group path. */
export function itemOf(move: StorageMove): string | null {
  if (move.project) return move.project.path_with_namespace;
  if (move.snippet) return String(move.snippet.id);
  if (move.group) {
    try {
      return new URL(move.group.web_url).pathname.replace(/^\/groups\//, '') || move.group.name;
    } catch {
      return move.group.name;
    }
  }
  return null;
}

/** What a move moves, as one word for tables: the project path, `snippet 7`, or the group path. */
export function repositoryOf(move: StorageMove): string | null {
  return move.snippet ? `snippet ${move.snippet.id}` : itemOf(move);
}

/** The record with `repository` next to its state, so tables show what is moving whatever the type. */
export function withRepository(move: StorageMove): StorageMove {
  const { id, state, ...rest } = move;
  return { id, state, repository: repositoryOf(move), ...rest } as StorageMove;
}

/** A list of moves, each with `repository` added as it streams. */
export function listMoves(ctx: Context, type: MoveType, item?: string): ListResult<StorageMove> {
  const [route, params] = moveRoute(type, 'list', item);
  return ctx.api.list<StorageMove>(route, params, ctx.paging).map(withRepository);
}
