import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { branches: 'Branches of a repository' };

export const entries: ManifestEntry[] = [
  ...verbEntries('branches', () => import('./commands.js'), {
    list: 'List the branches of a project',
    get: 'Show one branch and its head commit',
    create: 'Create a branch from a branch, tag or commit',
    delete: 'Delete a branch',
  }),
  { path: 'branches delete-merged', summary: 'Delete the branches merged into the default branch', load: () => import('./delete-merged.js') },
];
