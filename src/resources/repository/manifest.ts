import type { ManifestEntry } from '../../cli/command.js';

/** `repo` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { repo: 'Repository reads: tree, blobs, archives, comparisons, contributors' };

export const entries: ManifestEntry[] = [
  { path: 'repo tree', summary: 'List files and folders at a ref', load: () => import('./tree.js') },
  { path: 'repo blob', summary: 'Show or download a blob by its SHA', load: () => import('./blob.js') },
  { path: 'repo archive', summary: 'Download the repository as zip or tar, or extract it', load: () => import('./archive.js') },
  { path: 'repo compare', summary: 'Compare two branches, tags or commits', load: () => import('./compare.js') },
  { path: 'repo contributors', summary: 'List contributors with their commit counts', load: () => import('./contributors.js') },
  { path: 'repo merge-base', summary: 'Find the merge base of two or more refs', load: () => import('./merge-base.js') },
];
