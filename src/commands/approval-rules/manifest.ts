import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'approval-rules': 'Project approval rules' };

export const entries: ManifestEntry[] = [
  ...verbEntries('approval-rules', () => import('./commands.js'), {
    list: 'List the approval rules of a project',
    get: 'Show one approval rule',
  }),
  { path: 'approval-rules create', summary: 'Create a project approval rule', load: () => import('./create.js') },
  { path: 'approval-rules update', summary: 'Change a project approval rule', load: () => import('./update.js') },
  ...verbEntries('approval-rules', () => import('./commands.js'), { delete: 'Delete a project approval rule' }),
];
