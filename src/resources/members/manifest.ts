import type { ManifestEntry } from '../../cli/command.js';

/** `members` commands. */
export const groups: Record<string, string> = { members: 'Members of projects and groups' };

export const entries: ManifestEntry[] = [
  { path: 'members list', summary: 'List the members of a project or group (--inherited: everyone with access)', load: () => import('./list.js') },
  { path: 'members get', summary: 'Show one member', load: () => import('./get.js') },
  { path: 'members add', summary: 'Add users as members, with an access level', load: () => import('./add.js') },
  { path: 'members update', summary: 'Change the access level or expiry of members', load: () => import('./update.js') },
  { path: 'members remove', summary: 'Remove members (asks first)', load: () => import('./remove.js') },
];
