import type { ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { 'audit-events': 'Audit events: who changed what (instance, group, project)' };

export const entries: ManifestEntry[] = [
  { path: 'audit-events list', summary: 'List audit events of the instance, a group or a project, newest first', load: () => import('./list.js') },
  { path: 'audit-events get', summary: 'Show one audit event of the instance, a group or a project', load: () => import('./get.js') },
];
