import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'protected-tags': 'Protected tags' };

export const entries: ManifestEntry[] = [
  ...verbEntries('protected-tags', () => import('./commands.js'), {
    list: 'List the protected tags of a project',
    get: 'Show one protected tag or wildcard',
  }),
  { path: 'protected-tags protect', summary: 'Protect a tag name or wildcard', load: () => import('./protect.js') },
  { path: 'protected-tags unprotect', summary: 'Remove the protection of a tag name or wildcard', load: () => import('./unprotect.js') },
];
