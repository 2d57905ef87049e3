import type { ManifestEntry } from '../../cli/command.js';

/** `approval-rules` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'approval-rules': 'Project approval rules' };

export const entries: ManifestEntry[] = [
  { path: 'approval-rules list', summary: 'List the approval rules of a project', load: () => import('./list.js') },
  { path: 'approval-rules get', summary: 'Show one approval rule', load: () => import('./get.js') },
  { path: 'approval-rules create', summary: 'Create a project approval rule', load: () => import('./create.js') },
  { path: 'approval-rules update', summary: 'Change a project approval rule', load: () => import('./update.js') },
  { path: 'approval-rules delete', summary: 'Delete a project approval rule', load: () => import('./delete.js') },
];
