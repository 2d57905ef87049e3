import type { ManifestEntry } from '../../cli/command.js';

/** `keys` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'keys': 'SSH and deploy keys by id or fingerprint (administrators)' };

export const entries: ManifestEntry[] = [
  { path: 'keys get', summary: 'Show an SSH key and its owner by id', load: () => import('./get.js') },
  { path: 'keys find', summary: 'Find an SSH key by fingerprint or public key file', load: () => import('./find.js') },
];
