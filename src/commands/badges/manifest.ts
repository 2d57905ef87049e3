import type { ManifestEntry } from '../../cli/manifest.js';

/** `badges` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'badges': 'Project badges' };

export const entries: ManifestEntry[] = [
  // { path: 'badges list', summary: '…', load: () => import('./list.js') },
];
