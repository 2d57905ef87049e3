import type { ManifestEntry } from '../../cli/command.js';

/** `files` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { files: 'Repository files: read, download, blame, and change one file per commit' };

export const entries: ManifestEntry[] = [
  { path: 'files get', summary: 'Show a file at a ref: metadata and decoded content', load: () => import('./get.js') },
  { path: 'files info', summary: "Show a file's metadata without its content (HEAD request)", load: () => import('./info.js') },
  { path: 'files raw', summary: 'Download a file, size and sha256 verified', load: () => import('./raw.js') },
  { path: 'files blame', summary: 'Show which commit last changed each line', load: () => import('./blame.js') },
  { path: 'files create', summary: 'Add a file in a new commit', load: () => import('./create.js') },
  { path: 'files update', summary: 'Change a file in a new commit', load: () => import('./update.js') },
  { path: 'files put', summary: 'Create or update a file; identical content changes nothing', load: () => import('./put.js') },
  { path: 'files delete', summary: 'Remove a file in a new commit', load: () => import('./delete.js') },
];
