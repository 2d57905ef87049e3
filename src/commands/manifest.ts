import type { Commands, ManifestEntry } from '../cli/command.js';
import * as tokensManifest from './tokens/manifest.js';
import * as usersManifest from './users/manifest.js';
import * as settingsManifest from './settings/manifest.js';
import * as planLimitsManifest from './plan-limits/manifest.js';
import * as experimentsManifest from './experiments/manifest.js';
import * as licenseManifest from './license/manifest.js';
import * as storageMoveManifest from './storage-move/manifest.js';
import * as alertsManifest from './alerts/manifest.js';
import * as mergeTrainsManifest from './merge-trains/manifest.js';
import * as approvalsManifest from './approvals/manifest.js';
import * as approvalRulesManifest from './approval-rules/manifest.js';
import * as notesManifest from './notes/manifest.js';
import * as draftNotesManifest from './draft-notes/manifest.js';
import * as integrationsManifest from './integrations/manifest.js';
import * as badgesManifest from './badges/manifest.js';
import * as freezePeriodsManifest from './freeze-periods/manifest.js';
import * as secureFilesManifest from './secure-files/manifest.js';
import * as keysManifest from './keys/manifest.js';
import * as pushRuleManifest from './push-rule/manifest.js';
import * as protectedTagsManifest from './protected-tags/manifest.js';
import * as mirrorManifest from './mirror/manifest.js';
import * as repoManifest from './repo/manifest.js';
import * as commitsManifest from './commits/manifest.js';
import * as filesManifest from './files/manifest.js';
import * as submodulesManifest from './submodules/manifest.js';
import * as projectsManifest from './projects/manifest.js';
import * as groupsManifest from './groups/manifest.js';
import * as groupBadgesManifest from './group-badges/manifest.js';
import * as hooksManifest from './hooks/manifest.js';
import * as artifactsManifest from './artifacts/manifest.js';
import * as snippetsManifest from './snippets/manifest.js';
import * as desiredManifest from './desired/manifest.js';
import * as mcpManifest from './mcp/manifest.js';


const coreGroups: Record<string, string> = {
  auth: 'Log in, show who you are, log out, print the token',
  profile: 'Manage connection profiles',
};

const coreEntries: ManifestEntry[] = [
  { path: 'auth login', summary: 'Create or update a profile (prompts on a terminal)', load: () => import('./auth/login.js') },
  { path: 'auth status', summary: 'Show who the token belongs to, its scopes and expiry', load: () => import('./auth/status.js') },
  { path: 'auth logout', summary: 'Remove the credentials of a profile', load: () => import('./auth/logout.js') },
  { path: 'auth token', summary: 'Print the active token (for scripts)', load: () => import('./auth/token.js') },
  { path: 'profile list', summary: 'List profiles', load: () => import('./profile/list.js') },
  { path: 'profile show', summary: 'Show a profile (token redacted)', load: () => import('./profile/show.js') },
  { path: 'profile use', summary: 'Make a profile the current one', load: () => import('./profile/use.js') },
  { path: 'profile set', summary: 'Set a key of a profile', load: () => import('./profile/set.js') },
  { path: 'profile remove', summary: 'Remove a profile', load: () => import('./profile/remove.js') },
  { path: 'api', summary: 'Send a raw request to the REST API', load: () => import('./api.js') },
  { path: 'completion', summary: 'Print the shell completion script (bash, zsh, fish)', load: async () => ({ default: (await import('./completion.js')).completionCommand(commands) }) },
  { path: 'sandbox', summary: 'Run a local simulated instance for trying forgectl and testing scripts', load: () => import('./sandbox.js') },
];

/** One manifest per resource folder (src/commands/<resource>/manifest.ts). */
const areas = [tokensManifest, usersManifest, settingsManifest, planLimitsManifest, experimentsManifest, licenseManifest, storageMoveManifest, alertsManifest, mergeTrainsManifest, approvalsManifest, approvalRulesManifest, notesManifest, draftNotesManifest, integrationsManifest, badgesManifest, freezePeriodsManifest, secureFilesManifest, keysManifest, pushRuleManifest, protectedTagsManifest, mirrorManifest, repoManifest, commitsManifest, filesManifest, submodulesManifest, projectsManifest, groupsManifest, groupBadgesManifest, hooksManifest, artifactsManifest, snippetsManifest, desiredManifest, mcpManifest];

export const groups: Record<string, string> = Object.assign({}, coreGroups, ...areas.map((area) => area.groups));
/** Groups that have no command yet are left out of help. */
export const manifest: ManifestEntry[] = [...coreEntries, ...areas.flatMap((area) => area.entries)];

/** What main() hands the command line; the completion command gets it too (it lists every command). */
export const commands: Commands = { manifest, groups };
