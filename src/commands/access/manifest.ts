import type { ManifestEntry } from '../../cli/command.js';

/** `access` commands. */
export const groups: Record<string, string> = { access: 'Who can reach what: access reports for audits' };

export const entries: ManifestEntry[] = [
  { path: 'access report', summary: 'Every way a user reaches groups and projects, or the member matrix of a group or project', load: () => import('./report.js') },
];
