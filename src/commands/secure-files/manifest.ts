import type { ManifestEntry } from '../../cli/manifest.js';

/** `secure-files` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'secure-files': 'Project secure files' };

export const entries: ManifestEntry[] = [
  // { path: 'secure-files list', summary: '…', load: () => import('./list.js') },
];
