import type { ManifestEntry } from '../../cli/manifest.js';

/** `notes` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'notes': 'Notes on issues and project snippets' };

export const entries: ManifestEntry[] = [
  // { path: 'notes list', summary: '…', load: () => import('./list.js') },
];
