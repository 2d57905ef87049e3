import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { badges: 'Project badges' };

export const entries: ManifestEntry[] = [
  ...verbEntries('badges', () => import('./commands.js'), {
    list: 'List the badges of a project, group badges included',
    get: 'Show one badge',
    create: 'Add a badge to a project',
    update: 'Change a project badge',
    delete: 'Remove a project badge',
  }),
  { path: 'badges preview', summary: 'Show how badge URLs render for a project', load: () => import('./preview.js') },
];
