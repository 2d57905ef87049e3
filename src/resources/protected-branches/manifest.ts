import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'protected-branches': 'Protected branches' };

export const entries: ManifestEntry[] = [
  ...verbEntries('protected-branches', () => import('./commands.js'), {
    list: 'List the protected branches of a project or group',
    get: 'Show one protected branch or wildcard',
  }),
  { path: 'protected-branches protect', summary: 'Protect a branch name or wildcard', load: () => import('./protect.js') },
  { path: 'protected-branches update', summary: 'Change who may push, merge or unprotect, force-push and code owner approval', load: () => import('./update.js') },
  { path: 'protected-branches unprotect', summary: 'Remove the protection of a branch name or wildcard', load: () => import('./unprotect.js') },
];
