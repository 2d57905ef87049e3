import type { ManifestEntry } from '../../cli/manifest.js';

/** `alerts` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'alerts': 'Send alerts to an alert-intake endpoint' };

export const entries: ManifestEntry[] = [
  // { path: 'alerts list', summary: '…', load: () => import('./list.js') },
];
