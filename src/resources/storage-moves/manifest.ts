import type { ManifestEntry } from '../../cli/command.js';

/** `storage-move` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'storage-move': 'Repository storage moves' };

export const entries: ManifestEntry[] = [
  { path: 'storage-move schedule', summary: 'Schedule moves of repositories to another storage (all on a storage, or one item)', load: () => import('./schedule.js') },
  { path: 'storage-move list', summary: 'List repository storage moves, or the projects still on a storage', load: () => import('./list.js') },
  { path: 'storage-move get', summary: 'Show one repository storage move', load: () => import('./get.js') },
  { path: 'storage-move watch', summary: 'Follow a storage move until it finishes (exit 0) or fails (exit 8)', load: () => import('./watch.js') },
];
