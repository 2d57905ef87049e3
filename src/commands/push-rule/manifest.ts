import type { ManifestEntry } from '../../cli/manifest.js';

/** `push-rule` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'push-rule': 'Project push rule' };

export const entries: ManifestEntry[] = [
  // { path: 'push-rule list', summary: '…', load: () => import('./list.js') },
];
