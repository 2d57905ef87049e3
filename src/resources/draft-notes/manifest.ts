import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'draft-notes': 'Draft notes of a merge request' };

export const entries: ManifestEntry[] = [
  { path: 'draft-notes list', summary: 'List your draft notes on a merge request', load: () => import('./list.js') },
  ...verbEntries('draft-notes', () => import('./commands.js'), { get: 'Show one of your draft notes' }),
  { path: 'draft-notes create', summary: 'Write a draft note (a new thread, a reply, or a line comment)', load: () => import('./create.js') },
  { path: 'draft-notes update', summary: 'Change a draft note', load: () => import('./update.js') },
  ...verbEntries('draft-notes', () => import('./commands.js'), { delete: 'Discard a draft note' }),
  { path: 'draft-notes publish', summary: 'Publish one draft note', load: () => import('./publish.js') },
  { path: 'draft-notes publish-all', summary: 'Publish all of your draft notes on a merge request', load: () => import('./publish-all.js') },
];
