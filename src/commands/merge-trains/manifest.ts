import type { ManifestEntry } from '../../cli/manifest.js';

/** `merge-trains` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'merge-trains': 'Merge trains of a project' };

export const entries: ManifestEntry[] = [
  // { path: 'merge-trains list', summary: '…', load: () => import('./list.js') },
];
