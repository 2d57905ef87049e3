import type { ManifestEntry } from '../../cli/command.js';

/** `integrations` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'integrations': 'Group integrations' };

export const entries: ManifestEntry[] = [
  { path: 'integrations list', summary: 'List the active integrations of a group', load: () => import('./list.js') },
  { path: 'integrations get', summary: 'Show the settings of a group integration', load: () => import('./get.js') },
  { path: 'integrations set', summary: 'Set up or update a group integration', load: () => import('./set.js') },
  { path: 'integrations disable', summary: 'Disable a group integration and reset its settings', load: () => import('./disable.js') },
];
