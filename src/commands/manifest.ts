import type { Commands, ManifestEntry } from '../cli/command.js';
import { areas } from './areas.js';

/**
 * Every command: the commands of each folder come from its manifest.ts (src/commands/areas.ts lists them, generated
 * from the folders: npm run registries); the commands that are one file each are listed here.
 */
const topLevel: ManifestEntry[] = [
  { path: 'api', summary: 'Send a raw request to the REST or GraphQL API', load: () => import('./api.js') },
  { path: 'completion', summary: 'Print the shell completion script (bash, zsh, fish)', load: () => import('./completion.js') },
  { path: 'sandbox', summary: 'Run a local simulated instance for trying forgectl and testing scripts', load: () => import('./sandbox.js') },
  { path: 'doctor', summary: 'Check the whole path: configuration, network, TLS, service, clock, token', load: () => import('./doctor.js') },
  { path: 'version', summary: 'Print the version of forgectl (and of Node.js, as a record)', load: () => import('./version.js') },
];

export const groups: Record<string, string> = Object.assign({}, ...areas.map((area) => area.groups));
/** Groups that have no command yet are left out of help. */
export const manifest: ManifestEntry[] = [...topLevel, ...areas.flatMap((area) => area.entries)];

/** What main() hands the command line (commands see it as ctx.commands). */
export const commands: Commands = { manifest, groups };
