import type { ManifestEntry } from '../../cli/manifest.js';

/** `storage-move` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'storage-move': 'Repository storage moves' };

export const entries: ManifestEntry[] = [
  // { path: 'storage-move list', summary: '…', load: () => import('./list.js') },
];
