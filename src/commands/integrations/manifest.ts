import type { ManifestEntry } from '../../cli/manifest.js';

/** `integrations` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'integrations': 'Group integrations' };

export const entries: ManifestEntry[] = [
  // { path: 'integrations list', summary: '…', load: () => import('./list.js') },
];
