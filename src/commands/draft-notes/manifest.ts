import type { ManifestEntry } from '../../cli/command.js';

/** `draft-notes` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'draft-notes': 'Draft notes of a merge request' };

export const entries: ManifestEntry[] = [
  { path: 'draft-notes list', summary: 'List your draft notes on a merge request', load: () => import('./list.js') },
  { path: 'draft-notes get', summary: 'Show one of your draft notes', load: () => import('./get.js') },
  { path: 'draft-notes create', summary: 'Write a draft note (a new thread, a reply, or a line comment)', load: () => import('./create.js') },
  { path: 'draft-notes update', summary: 'Change a draft note', load: () => import('./update.js') },
  { path: 'draft-notes delete', summary: 'Discard a draft note', load: () => import('./delete.js') },
  { path: 'draft-notes publish', summary: 'Publish one draft note', load: () => import('./publish.js') },
  { path: 'draft-notes publish-all', summary: 'Publish all of your draft notes on a merge request', load: () => import('./publish-all.js') },
];
