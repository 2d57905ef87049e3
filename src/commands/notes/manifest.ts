import type { ManifestEntry } from '../../cli/command.js';

/** `notes` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'notes': 'Notes on issues and project snippets' };

export const entries: ManifestEntry[] = [
  { path: 'notes list', summary: 'List the notes of an issue, a project snippet or a merge request', load: () => import('./list.js') },
  { path: 'notes get', summary: 'Show one note', load: () => import('./get.js') },
  { path: 'notes create', summary: 'Add a note (inline text, a file or stdin)', load: () => import('./create.js') },
  { path: 'notes update', summary: 'Change the text of a note', load: () => import('./update.js') },
  { path: 'notes delete', summary: 'Delete a note', load: () => import('./delete.js') },
];
