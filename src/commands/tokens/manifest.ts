import type { ManifestEntry } from '../../cli/manifest.js';

/** `tokens` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'tokens': 'Group, project and personal access tokens; cron-safe rotation' };

export const entries: ManifestEntry[] = [
  // { path: 'tokens list', summary: '…', load: () => import('./list.js') },
];
