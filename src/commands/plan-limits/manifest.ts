import type { ManifestEntry } from '../../cli/manifest.js';

/** `plan-limits` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'plan-limits': 'Plan limits' };

export const entries: ManifestEntry[] = [
  // { path: 'plan-limits list', summary: '…', load: () => import('./list.js') },
];
