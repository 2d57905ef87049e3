import type { ManifestEntry } from '../../cli/command.js';

/** `experiments` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'experiments': 'Experiments' };

export const entries: ManifestEntry[] = [
  { path: 'experiments list', summary: 'List the experiments of the instance and their rollout', load: () => import('./list.js') },
];
