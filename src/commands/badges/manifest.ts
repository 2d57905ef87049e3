import type { ManifestEntry } from '../../cli/command.js';

/** `badges` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'badges': 'Project badges' };

export const entries: ManifestEntry[] = [
  { path: 'badges list', summary: 'List the badges of a project, group badges included', load: () => import('./list.js') },
  { path: 'badges get', summary: 'Show one badge', load: () => import('./get.js') },
  { path: 'badges create', summary: 'Add a badge to a project', load: () => import('./create.js') },
  { path: 'badges update', summary: 'Change a project badge', load: () => import('./update.js') },
  { path: 'badges delete', summary: 'Remove a project badge', load: () => import('./delete.js') },
  { path: 'badges preview', summary: 'Show how badge URLs render for a project', load: () => import('./preview.js') },
];
