import type { ManifestEntry } from '../../cli/manifest.js';

/** `mirror` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'mirror': 'Pull mirroring' };

export const entries: ManifestEntry[] = [
  // { path: 'mirror list', summary: '…', load: () => import('./list.js') },
];
