import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'approval-rules': 'Approval rules of a project or of a merge request (--mr)' };

export const entries: ManifestEntry[] = [
  ...verbEntries('approval-rules', () => import('./commands.js'), {
    list: 'List the approval rules of a project or merge request',
    get: 'Show one approval rule',
  }),
  { path: 'approval-rules create', summary: 'Create an approval rule of a project or merge request', load: () => import('./create.js') },
  { path: 'approval-rules update', summary: 'Change an approval rule of a project or merge request', load: () => import('./update.js') },
  ...verbEntries('approval-rules', () => import('./commands.js'), { delete: 'Delete an approval rule of a project or merge request' }),
];
