import type { CommandDef } from './command.js';

/**
 * Every command: its path, one-line summary, and how to load it. Help and completion read this without loading
 * any command module; running a command loads only its own module (each is a separate chunk in the bundle).
 */
export interface ManifestEntry {
  path: string;
  summary: string;
  load: () => Promise<{ default: CommandDef }>;
}

export const groups: Record<string, string> = {
  auth: 'Log in, show who you are, log out, print the token',
  profile: 'Manage connection profiles',
};

export const manifest: ManifestEntry[] = [
  { path: 'auth login', summary: 'Create or update a profile (prompts on a terminal)', load: () => import('../commands/auth/login.js') },
  { path: 'auth status', summary: 'Show who the token belongs to, its scopes and expiry', load: () => import('../commands/auth/status.js') },
  { path: 'auth logout', summary: 'Remove the credentials of a profile', load: () => import('../commands/auth/logout.js') },
  { path: 'auth token', summary: 'Print the active token (for scripts)', load: () => import('../commands/auth/token.js') },
  { path: 'profile list', summary: 'List profiles', load: () => import('../commands/profile/list.js') },
  { path: 'profile show', summary: 'Show a profile (token redacted)', load: () => import('../commands/profile/show.js') },
  { path: 'profile use', summary: 'Make a profile the current one', load: () => import('../commands/profile/use.js') },
  { path: 'profile set', summary: 'Set a key of a profile', load: () => import('../commands/profile/set.js') },
  { path: 'profile remove', summary: 'Remove a profile', load: () => import('../commands/profile/remove.js') },
  { path: 'api', summary: 'Send a raw request to the REST API', load: () => import('../commands/api.js') },
  { path: 'completion', summary: 'Print the shell completion script (bash, zsh, fish)', load: () => import('../commands/completion.js') },
  { path: 'sandbox', summary: 'Run a local simulated instance for trying forgectl and testing scripts', load: () => import('../commands/sandbox.js') },
];
