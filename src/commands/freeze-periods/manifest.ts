import type { ManifestEntry } from '../../cli/manifest.js';

/** `freeze-periods` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'freeze-periods': 'Deploy freeze periods' };

export const entries: ManifestEntry[] = [
  // { path: 'freeze-periods list', summary: '…', load: () => import('./list.js') },
];
