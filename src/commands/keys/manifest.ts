import type { ManifestEntry } from '../../cli/manifest.js';

/** `keys` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'keys': 'SSH keys by id or fingerprint' };

export const entries: ManifestEntry[] = [
  // { path: 'keys list', summary: '…', load: () => import('./list.js') },
];
