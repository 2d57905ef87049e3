import type { ManifestEntry } from '../../cli/command.js';

/** `variables` commands. */
export const groups: Record<string, string> = { variables: 'CI/CD variables of a project, a group or the instance' };

export const entries: ManifestEntry[] = [
  { path: 'variables list', summary: 'List the CI/CD variables of a project, group or the instance', load: () => import('./list.js') },
  { path: 'variables get', summary: 'Show one CI/CD variable (masked values only with --show-values at a terminal)', load: () => import('./get.js') },
  { path: 'variables set', summary: 'Create or change a CI/CD variable (secret values from stdin, a file or the environment)', load: () => import('./set.js') },
  { path: 'variables delete', summary: 'Delete a CI/CD variable', load: () => import('./delete.js') },
  { path: 'variables export', summary: 'Write CI/CD variables as dotenv or JSON (never masked values)', load: () => import('./export.js') },
  { path: 'variables import', summary: 'Create and update CI/CD variables from a dotenv or JSON file', load: () => import('./import.js') },
];
