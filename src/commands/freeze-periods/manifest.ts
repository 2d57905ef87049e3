import type { ManifestEntry } from '../../cli/command.js';

/** `freeze-periods` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'freeze-periods': 'Deploy freeze periods' };

export const entries: ManifestEntry[] = [
  { path: 'freeze-periods list', summary: 'List the deploy freeze periods of a project', load: () => import('./list.js') },
  { path: 'freeze-periods get', summary: 'Show one freeze period', load: () => import('./get.js') },
  { path: 'freeze-periods create', summary: 'Add a freeze period (cron checked locally)', load: () => import('./create.js') },
  { path: 'freeze-periods update', summary: 'Change a freeze period', load: () => import('./update.js') },
  { path: 'freeze-periods delete', summary: 'Remove a freeze period', load: () => import('./delete.js') },
];
