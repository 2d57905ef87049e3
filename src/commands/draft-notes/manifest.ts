import type { ManifestEntry } from '../../cli/manifest.js';

/** `draft-notes` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'draft-notes': 'Draft notes of a merge request' };

export const entries: ManifestEntry[] = [
  // { path: 'draft-notes list', summary: '…', load: () => import('./list.js') },
];
