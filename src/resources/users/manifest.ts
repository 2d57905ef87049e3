import { verbEntries, type ManifestEntry } from '../../cli/command.js';

/** `users` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'users': 'Users of the instance: list, create, moderate, delete, offboard' };

export const entries: ManifestEntry[] = [
  { path: 'users list', summary: 'List users, with every filter of the service', load: () => import('./list.js') },
  { path: 'users get', summary: 'Show one user by id or username', load: () => import('./get.js') },
  { path: 'users create', summary: 'Create an account (the password from stdin, or a reset link by email)', load: () => import('./create.js') },
  ...verbEntries('users', () => import('./moderate.js'), {
    block: 'Block an account (asks first)',
    unblock: 'Unblock a blocked account',
    deactivate: 'Deactivate a dormant account (asks first)',
    activate: 'Activate a deactivated account',
    ban: 'Ban an account (asks first)',
    unban: 'Unban a banned account',
    approve: 'Approve a sign-up pending approval',
    reject: 'Reject a sign-up pending approval: the account is deleted (asks first)',
  }),
  { path: 'users delete', summary: 'Delete an account, naming what goes with it (asks first)', load: () => import('./delete.js') },
];
