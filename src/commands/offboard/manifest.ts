import type { ManifestEntry } from '../../cli/command.js';

/** `users offboard`: a workflow over users, members, tokens and keys (the `users` group is the users resource's). */
export const groups: Record<string, string> = {};

export const entries: ManifestEntry[] = [
  { path: 'users offboard', summary: 'Take a departing user\'s access away: plan, confirm, block, remove, revoke (resumable)', load: () => import('./offboard.js') },
];
