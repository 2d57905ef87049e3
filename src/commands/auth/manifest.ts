import type { ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { auth: 'Log in, show who you are, log out, print the token' };

export const entries: ManifestEntry[] = [
  { path: 'auth login', summary: 'Create or update a profile (prompts on a terminal)', load: () => import('./login.js') },
  { path: 'auth status', summary: 'Show who the token belongs to, its scopes and expiry', load: () => import('./status.js') },
  { path: 'auth logout', summary: 'Remove the credentials of a profile', load: () => import('./logout.js') },
  { path: 'auth token', summary: 'Print the active token (for scripts)', load: () => import('./token.js') },
  { path: 'auth migrate', summary: 'Move profile tokens between the OS keyring and the config file', load: () => import('./migrate.js') },
];
