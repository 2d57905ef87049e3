import type { ManifestEntry } from '../../cli/manifest.js';

/** `protected-tags` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'protected-tags': 'Protected tags' };

export const entries: ManifestEntry[] = [
  // { path: 'protected-tags list', summary: '…', load: () => import('./list.js') },
];
