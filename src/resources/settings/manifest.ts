import type { ManifestEntry } from '../../cli/command.js';

/** `settings` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'settings': 'Instance application settings' };

export const entries: ManifestEntry[] = [
  { path: 'settings get', summary: 'Show the application settings of the instance', load: () => import('./get.js') },
  { path: 'settings set', summary: 'Change application settings (key=value …), previewed and confirmed', load: () => import('./set.js') },
];
