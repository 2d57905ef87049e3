import type { ManifestEntry } from '../../cli/command.js';

/** `push-rule` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'push-rule': 'Project push rule (Premium)' };

export const entries: ManifestEntry[] = [
  { path: 'push-rule get', summary: 'Show the push rule of a project', load: () => import('./get.js') },
  { path: 'push-rule set', summary: 'Create or update the push rule of a project', load: () => import('./set.js') },
  { path: 'push-rule delete', summary: 'Remove the push rule of a project', load: () => import('./delete.js') },
];
