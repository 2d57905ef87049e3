import type { ManifestEntry } from '../../cli/manifest.js';

/** `approvals` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'approvals': 'Approvals of a merge request, and the project approval configuration' };

export const entries: ManifestEntry[] = [
  // { path: 'approvals list', summary: '…', load: () => import('./list.js') },
];
