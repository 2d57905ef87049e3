import type { ManifestEntry } from '../../cli/command.js';

/** `plan-limits` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'plan-limits': 'Plan limits' };

export const entries: ManifestEntry[] = [
  { path: 'plan-limits get', summary: 'Show the limits of a plan', load: () => import('./get.js') },
  { path: 'plan-limits set', summary: 'Change limits of a plan (limit=N …), previewed and confirmed', load: () => import('./set.js') },
];
