import type { ManifestEntry } from '../../cli/command.js';

/** `merge-trains` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'merge-trains': 'Merge trains of a project' };

export const entries: ManifestEntry[] = [
  { path: 'merge-trains list', summary: 'List merge train entries of a project or of one target branch', load: () => import('./list.js') },
  { path: 'merge-trains get', summary: 'Show the merge train entry of a merge request', load: () => import('./get.js') },
  { path: 'merge-trains add', summary: 'Add a merge request to the merge train of its target branch', load: () => import('./add.js') },
];
