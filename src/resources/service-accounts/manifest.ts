import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'service-accounts': 'Service accounts of the instance or a top-level group (their tokens: tokens --service-account)' };

export const entries: ManifestEntry[] = [
  ...verbEntries('service-accounts', () => import('./commands.js'), {
    list: 'List the service accounts of the instance or of a top-level group',
    create: 'Create a service account (username, name and email made up when not given)',
  }),
  { path: 'service-accounts update', summary: 'Change the name, username or email of a service account', load: () => import('./update.js') },
  { path: 'service-accounts delete', summary: 'Delete a service account, naming the tokens that stop working', load: () => import('./delete.js') },
];
