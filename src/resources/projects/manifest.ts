import type { ManifestEntry } from '../../cli/command.js';

/** `projects` commands. */
export const groups: Record<string, string> = { projects: 'Projects: list, create, change, archive, delete' };

export const entries: ManifestEntry[] = [
  { path: 'projects list', summary: 'List projects, of the instance, a group (tree) or a user, with the service\'s filters', load: () => import('./list.js') },
  { path: 'projects get', summary: 'Show one project', load: () => import('./get.js') },
  { path: 'projects create', summary: 'Create a project in a group or your namespace', load: () => import('./create.js') },
  { path: 'projects update', summary: 'Change a project\'s settings', load: () => import('./update.js') },
  { path: 'projects archive', summary: 'Archive a project (read-only)', load: () => import('./archive.js') },
  { path: 'projects unarchive', summary: 'Make an archived project writable again', load: () => import('./unarchive.js') },
  { path: 'projects transfer', summary: 'Move a project to another group or namespace', load: () => import('./transfer.js') },
  { path: 'projects delete', summary: 'Delete a project (asks first; honours delayed deletion)', load: () => import('./delete.js') },
];
