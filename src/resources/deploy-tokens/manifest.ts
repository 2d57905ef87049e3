import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'deploy-tokens': 'Deploy tokens: a username and token for a project\'s or group\'s repository and registries' };

export const entries: ManifestEntry[] = [
  ...verbEntries('deploy-tokens', () => import('./commands.js'), {
    list: 'List the deploy tokens of a project, a group or the instance',
    get: 'Show one deploy token of a project or group',
  }),
  { path: 'deploy-tokens create', summary: 'Create a deploy token (the value is shown once)', load: () => import('./create.js') },
  { path: 'deploy-tokens revoke', summary: 'Revoke a deploy token', load: () => import('./revoke.js') },
];
