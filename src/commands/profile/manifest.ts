import type { ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { profile: 'Manage connection profiles' };

export const entries: ManifestEntry[] = [
  { path: 'profile list', summary: 'List profiles', load: () => import('./list.js') },
  { path: 'profile show', summary: 'Show a profile (token redacted)', load: () => import('./show.js') },
  { path: 'profile use', summary: 'Make a profile the current one', load: () => import('./use.js') },
  { path: 'profile set', summary: 'Set a key of a profile', load: () => import('./set.js') },
  { path: 'profile unset', summary: 'Remove a key from a profile', load: () => import('./unset.js') },
  { path: 'profile remove', summary: 'Remove a profile', load: () => import('./remove.js') },
];
