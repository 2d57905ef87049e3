import type { ManifestEntry } from '../../cli/command.js';

/** `secure-files` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'secure-files': 'Project secure files' };

export const entries: ManifestEntry[] = [
  { path: 'secure-files list', summary: 'List the secure files of a project', load: () => import('./list.js') },
  { path: 'secure-files get', summary: 'Show one secure file', load: () => import('./get.js') },
  { path: 'secure-files upload', summary: 'Upload a secure file (at most 5 MB)', load: () => import('./upload.js') },
  { path: 'secure-files download', summary: 'Download a secure file, checksum verified', load: () => import('./download.js') },
  { path: 'secure-files delete', summary: 'Remove a secure file', load: () => import('./delete.js') },
];
