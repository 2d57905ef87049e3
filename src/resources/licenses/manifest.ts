import type { ManifestEntry } from '../../cli/command.js';

/** `license` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'license': 'Licenses' };

export const entries: ManifestEntry[] = [
  { path: 'license get', summary: 'Show the current license (or one by id): seats, overage, expiry', load: () => import('./get.js') },
  { path: 'license list', summary: 'List every license of the instance', load: () => import('./list.js') },
  { path: 'license add', summary: 'Add a license from a key file or stdin', load: () => import('./add.js') },
  { path: 'license delete', summary: 'Delete a license', load: () => import('./delete.js') },
  { path: 'license refresh-billable', summary: 'Recalculate the billable users of a license', load: () => import('./refresh-billable.js') },
  { path: 'license usage-export', summary: 'Export the usage of the current license as CSV', load: () => import('./usage-export.js') },
];
