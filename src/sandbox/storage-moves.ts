import type { Db } from './db.js';
import { STORAGES } from './seed.js';
import { groupWikis, groups, snippets, storageMoveTable, type GroupWiki, type MoveKind, type MoveState, type StorageMove } from './model.js';
import { projectById } from './hierarchy.js';

/**
 * Repository storage moves as their state machine runs (routes/storage-moves.ts serves them): a move's state follows
 * from its creation time, and settling applies what the states imply to the repositories moved. Project lists settle
 * the moves too, so a project's storage and read-only flag are current wherever they are shown.
 */

/** The instance's repository storages, created with the instance: repositories move between them, the settings weigh them. */
export const repositoryStorages = (db: Db): string[] => db.record<string[]>('storages', () => [...STORAGES]);

/** The states a move goes through, in order. */
export function statesOf(move: StorageMove): MoveState[] {
  return [...(move.bulk ? ['initial' as const] : []), 'scheduled', 'started', ...(move.fails ? ['failed' as const] : ['replicated' as const, 'finished' as const])];
}

export function moveState(move: StorageMove, now: Date): MoveState {
  const states = statesOf(move);
  const step = Math.floor((now.getTime() - Date.parse(move.created_at)) / Math.max(1, move.step_ms));
  return states[Math.min(states.length - 1, Math.max(0, step))];
}

interface Container {
  repository_storage: string;
  repository_read_only?: boolean;
}

export function groupWiki(db: Db, groupId: number): GroupWiki {
  let wiki = groupWikis(db).find((w) => w.group_id === groupId);
  if (!wiki) {
    wiki = { group_id: groupId, repository_storage: 'default' };
    groupWikis(db).push(wiki);
  }
  return wiki;
}

export function containerOf(db: Db, kind: MoveKind, id: number): Container | undefined {
  if (kind === 'project') return projectById(db, id);
  if (kind === 'snippet') {
    const snippet = snippets(db).find((s) => s.id === id);
    if (snippet) snippet.repository_storage ??= 'default';
    return snippet as Container | undefined;
  }
  return groups(db).some((g) => g.id === id) ? groupWiki(db, id) : undefined;
}

/** Applies what the moves' current states imply: read-only while moving, the new storage once replicated. */
export function settleStorageMoves(db: Db, now: Date): void {
  for (const move of storageMoveTable(db)) {
    if (move.settled) continue;
    const container = containerOf(db, move.kind, move.container_id);
    const state = moveState(move, now);
    if (!container) {
      move.settled = true;
      continue;
    }
    if (state === 'replicated' || state === 'finished') {
      container.repository_storage = move.destination_storage_name;
      container.repository_read_only = false;
    } else if (state === 'failed') {
      container.repository_read_only = false;
    } else {
      container.repository_read_only = true;
    }
    if (state === 'finished' || state === 'failed') move.settled = true;
  }
}
