import type { ManifestEntry } from '../../cli/command.js';

/** `groups` commands. */
export const groups: Record<string, string> = { groups: 'Groups and subgroups: list and show them' };

export const entries: ManifestEntry[] = [
  { path: 'groups list', summary: 'List groups, or the subgroups of a group', load: () => import('./list.js') },
  { path: 'groups get', summary: 'Show one group', load: () => import('./get.js') },
];
