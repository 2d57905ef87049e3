import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'deploy-keys': 'Deploy keys: SSH keys with access to a project\'s repository' };

export const entries: ManifestEntry[] = [
  ...verbEntries('deploy-keys', () => import('./commands.js'), {
    list: 'List the deploy keys enabled on a project',
    get: 'Show one deploy key of a project',
  }),
  { path: 'deploy-keys create', summary: 'Add a deploy key to a project', load: () => import('./create.js') },
  ...verbEntries('deploy-keys', () => import('./commands.js'), {
    update: 'Change the title or push access of a deploy key',
    delete: 'Remove a deploy key from a project',
  }),
  { path: 'deploy-keys enable', summary: 'Enable an existing deploy key on another project', load: () => import('./enable.js') },
  { path: 'deploy-keys instance', summary: 'List every deploy key of the instance (administrators)', load: () => import('./instance.js') },
];
