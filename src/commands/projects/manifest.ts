import type { ManifestEntry } from '../../cli/command.js';

/** `projects` commands. */
export const groups: Record<string, string> = { projects: 'Projects: list and show them' };

export const entries: ManifestEntry[] = [
  { path: 'projects list', summary: 'List projects, of the instance, a group (tree) or a user, with the service\'s filters', load: () => import('./list.js') },
  { path: 'projects get', summary: 'Show one project', load: () => import('./get.js') },
];
