import type { ManifestEntry } from '../../cli/command.js';

/** `alerts` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'alerts': 'Send alerts to an alert-intake endpoint' };

export const entries: ManifestEntry[] = [
  { path: 'alerts send', summary: 'Send an alert to an alert-intake URL (generic or metrics format)', load: () => import('./send.js') },
  { path: 'alerts resolve', summary: 'Resolve an open alert (end time or status resolved)', load: () => import('./resolve.js') },
];
