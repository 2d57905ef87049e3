import type { ManifestEntry } from '../../cli/command.js';

/** `users` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'users': 'Users of the instance' };

export const entries: ManifestEntry[] = [
  { path: 'users list', summary: 'List users, with every filter of the service', load: () => import('./list.js') },
  { path: 'users get', summary: 'Show one user by id or username', load: () => import('./get.js') },
];
