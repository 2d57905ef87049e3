import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'secure-files': 'Project secure files' };

export const entries: ManifestEntry[] = [
  ...verbEntries('secure-files', () => import('./commands.js'), {
    list: 'List the secure files of a project',
    get: 'Show one secure file',
  }),
  { path: 'secure-files upload', summary: 'Upload a secure file (at most 5 MB)', load: () => import('./upload.js') },
  { path: 'secure-files download', summary: 'Download a secure file, checksum verified', load: () => import('./download.js') },
  ...verbEntries('secure-files', () => import('./commands.js'), { delete: 'Remove a secure file' }),
];
