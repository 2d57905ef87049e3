import type { ManifestEntry } from '../../cli/command.js';

/** `groups` commands. */
export const groups: Record<string, string> = { groups: 'Groups and subgroups: list, create, change, delete' };

export const entries: ManifestEntry[] = [
  { path: 'groups list', summary: 'List groups, or the subgroups of a group', load: () => import('./list.js') },
  { path: 'groups get', summary: 'Show one group', load: () => import('./get.js') },
  { path: 'groups create', summary: 'Create a group or subgroup', load: () => import('./create.js') },
  { path: 'groups update', summary: 'Change a group\'s settings', load: () => import('./update.js') },
  { path: 'groups delete', summary: 'Delete a group with its subgroups and projects (asks first; honours delayed deletion)', load: () => import('./delete.js') },
];
