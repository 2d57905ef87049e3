import type { ManifestEntry } from '../../cli/manifest.js';

/** `approval-rules` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'approval-rules': 'Project approval rules' };

export const entries: ManifestEntry[] = [
  // { path: 'approval-rules list', summary: '…', load: () => import('./list.js') },
];
