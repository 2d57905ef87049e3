import type { ManifestEntry } from '../../cli/manifest.js';

/** `settings` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'settings': 'Instance application settings' };

export const entries: ManifestEntry[] = [
  // { path: 'settings list', summary: '…', load: () => import('./list.js') },
];
