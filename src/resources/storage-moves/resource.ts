import { f } from '../../api/fields.js';
import { defineResource } from '../../api/resource.js';

/** The kinds of repositories moved; a move's answer names the item of its kind and goes without the others. */
export const MOVE_KINDS = ['project', 'snippet', 'group'] as const;

/** The states a move goes through (one of the last three ends it). */
export const MOVE_STATES = ['initial', 'scheduled', 'started', 'replicated', 'finished', 'failed', 'cleanup failed'] as const;

const movesOf = <const T extends (typeof MOVE_KINDS)[number], const P extends string>(type: T, items: P) =>
  ({
    parent: 'instance',
    without: MOVE_KINDS.filter((kind) => kind !== type),
    routes: {
      list: `GET /${type}_repository_storage_moves`,
      get: `GET /${type}_repository_storage_moves/{move_id}`,
      scheduleAll: `POST /${type}_repository_storage_moves`,
      listOfItem: `GET ${items}/repository_storage_moves`,
      getOfItem: `GET ${items}/repository_storage_moves/{move_id}`,
      schedule: `POST ${items}/repository_storage_moves`,
    },
  }) as const;

/**
 * Repository storage moves (administrators): one API shape for projects, snippets and group wikis, chosen by
 * --type. Each kind has the instance's moves and one item's moves. The commands (scheduling, watching a move to its
 * end) are workflows, hand-written over these routes.
 */
export const storageMoves = defineResource({
  noun: 'storage move',
  command: 'storage-move',
  id: { param: 'move_id', field: 'id' },
  parents: {
    project: movesOf('project', '/projects/{project}'),
    snippet: movesOf('snippet', '/snippets/{snippet_id}'),
    group: movesOf('group', '/groups/{group}'),
  },
  fields: {
    id: f.int({ min: 1, readOnly: true }),
    created_at: f.time({ readOnly: true }),
    state: f.enum(MOVE_STATES, { readOnly: true }),
    source_storage_name: f.string({ readOnly: true }),
    destination_storage_name: f.string({ help: 'the storage to move to' }),
    project: f.object<{ id: number; path_with_namespace: string }>(),
    snippet: f.object<{ id: number; title: string }>(),
    group: f.object<{ id: number; name: string; web_url: string }>(),
  },
  columns: ['id', 'state', 'source_storage_name', 'destination_storage_name', 'created_at'],
  identity: ['id'],
  roles: { read: 'owner', write: 'owner' },
});
