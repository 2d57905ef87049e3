import type { ManifestEntry } from '../../cli/command.js';

/** `approvals` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = {
  'approvals': 'Approvals of a merge request, and the project approval configuration',
  'approvals config': 'The project approval configuration',
};

export const entries: ManifestEntry[] = [
  { path: 'approvals show', summary: 'Show the approval state of a merge request', load: () => import('./show.js') },
  { path: 'approvals state', summary: 'Show each approval rule of a merge request: required, approved by whom, approved or not', load: () => import('./state.js') },
  { path: 'approvals approve', summary: 'Approve a merge request (optionally only at a given HEAD SHA)', load: () => import('./approve.js') },
  { path: 'approvals unapprove', summary: 'Withdraw your approval of a merge request', load: () => import('./unapprove.js') },
  { path: 'approvals reset', summary: 'Remove every approval of a merge request (bot users of access tokens only)', load: () => import('./reset.js') },
  { path: 'approvals config get', summary: 'Show the project approval configuration', load: () => import('./config/get.js') },
  { path: 'approvals config set', summary: 'Change the project approval configuration', load: () => import('./config/set.js') },
];
