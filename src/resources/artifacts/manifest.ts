import type { ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { artifacts: 'Job artifacts: download, single files, keep, delete' };

export const entries: ManifestEntry[] = [
  { path: 'artifacts download', summary: 'Download, extract or list the artifacts archive of a job', load: () => import('./download.js') },
  { path: 'artifacts file', summary: 'Stream one file out of the artifacts of a job', load: () => import('./file.js') },
  { path: 'artifacts keep', summary: 'Keep the artifacts of a job from expiring', load: () => import('./keep.js') },
  { path: 'artifacts delete', summary: 'Delete the artifacts of a job', load: () => import('./delete.js') },
  { path: 'artifacts delete-all', summary: 'Delete the job artifacts of a project (asynchronous; keeps the latest per ref)', load: () => import('./delete-all.js') },
];
