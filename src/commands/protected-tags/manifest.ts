import type { ManifestEntry } from '../../cli/command.js';

/** `protected-tags` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'protected-tags': 'Protected tags' };

export const entries: ManifestEntry[] = [
  { path: 'protected-tags list', summary: 'List the protected tags of a project', load: () => import('./list.js') },
  { path: 'protected-tags get', summary: 'Show one protected tag or wildcard', load: () => import('./get.js') },
  { path: 'protected-tags protect', summary: 'Protect a tag name or wildcard', load: () => import('./protect.js') },
  { path: 'protected-tags unprotect', summary: 'Remove the protection of a tag name or wildcard', load: () => import('./unprotect.js') },
];
