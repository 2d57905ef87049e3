import { verbEntries, type ManifestEntry } from '../../cli/command.js';

/** `notes` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'notes': 'Notes on issues, merge requests and project snippets' };

export const entries: ManifestEntry[] = [
  ...verbEntries('notes', () => import('./commands.js'), {
    list: 'List the notes of an issue, a project snippet or a merge request',
    get: 'Show one note',
  }),
  { path: 'notes create', summary: 'Add a note (inline text, a file or stdin)', load: () => import('./create.js') },
  { path: 'notes update', summary: 'Change the text of a note', load: () => import('./update.js') },
  ...verbEntries('notes', () => import('./commands.js'), { delete: 'Delete a note' }),
];
