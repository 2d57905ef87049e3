import type { ManifestEntry } from '../../cli/manifest.js';

/** `license` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'license': 'Licenses' };

export const entries: ManifestEntry[] = [
  // { path: 'license list', summary: '…', load: () => import('./list.js') },
];
