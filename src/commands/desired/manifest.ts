import type { ManifestEntry } from '../../cli/command.js';

/** Configuration as code: desired state in YAML, compared with the instance and applied. */
export const groups: Record<string, string> = {};

export const entries: ManifestEntry[] = [
  { path: 'plan', summary: 'Show what differs between a desired-state file and the instance (exit 9 on drift)', load: () => import('./plan.js') },
  { path: 'plan merge', summary: 'Combine the plans of the shards of one run into one plan (exit 9 on drift)', load: () => import('./merge.js') },
  { path: 'apply', summary: 'Make the instance match a desired-state file or a saved plan', load: () => import('./apply.js') },
  { path: 'export', summary: 'Write the current configuration as a desired-state file', load: () => import('./export.js') },
  { path: 'validate', summary: 'Check a desired-state file offline (YAML, schema, values)', load: () => import('./validate.js') },
];
