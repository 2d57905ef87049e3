import type { ManifestEntry } from '../../cli/command.js';

/** `tokens` commands. Add one entry per command module; each loads lazily. */
export const groups: Record<string, string> = { 'tokens': 'Group, project and personal access tokens; cron-safe rotation' };

export const entries: ManifestEntry[] = [
  { path: 'tokens list', summary: 'List group, project or personal access tokens', load: () => import('./list.js') },
  { path: 'tokens get', summary: 'Show one access token (or self)', load: () => import('./get.js') },
  { path: 'tokens create', summary: 'Create an access token (the value is shown once)', load: () => import('./create.js') },
  { path: 'tokens rotate', summary: 'Rotate a token safely, for cron: lock, recovery file, save, check', load: () => import('./rotate.js') },
  { path: 'tokens revoke', summary: 'Revoke an access token', load: () => import('./revoke.js') },
  { path: 'tokens audit', summary: 'Tokens expiring soon (exit 9 when any): for cron and monitoring', load: () => import('./audit.js') },
  { path: 'tokens identify', summary: 'What a token (from stdin) is and whose; --revoke revokes it', load: () => import('./identify.js') },
  { path: 'tokens recover', summary: 'Finish an interrupted rotation from its recovery file', load: () => import('./recover.js') },
];
