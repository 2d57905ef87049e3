import type { ManifestEntry } from './command.js';
import * as tokensManifest from '../commands/tokens/manifest.js';
import * as usersManifest from '../commands/users/manifest.js';
import * as settingsManifest from '../commands/settings/manifest.js';
import * as planLimitsManifest from '../commands/plan-limits/manifest.js';
import * as experimentsManifest from '../commands/experiments/manifest.js';
import * as licenseManifest from '../commands/license/manifest.js';
import * as storageMoveManifest from '../commands/storage-move/manifest.js';
import * as alertsManifest from '../commands/alerts/manifest.js';
import * as mergeTrainsManifest from '../commands/merge-trains/manifest.js';
import * as approvalsManifest from '../commands/approvals/manifest.js';
import * as approvalRulesManifest from '../commands/approval-rules/manifest.js';
import * as notesManifest from '../commands/notes/manifest.js';
import * as draftNotesManifest from '../commands/draft-notes/manifest.js';
import * as integrationsManifest from '../commands/integrations/manifest.js';
import * as badgesManifest from '../commands/badges/manifest.js';
import * as freezePeriodsManifest from '../commands/freeze-periods/manifest.js';
import * as secureFilesManifest from '../commands/secure-files/manifest.js';
import * as keysManifest from '../commands/keys/manifest.js';
import * as pushRuleManifest from '../commands/push-rule/manifest.js';
import * as protectedTagsManifest from '../commands/protected-tags/manifest.js';
import * as mirrorManifest from '../commands/mirror/manifest.js';
import * as repoManifest from '../commands/repo/manifest.js';
import * as commitsManifest from '../commands/commits/manifest.js';
import * as filesManifest from '../commands/files/manifest.js';
import * as submodulesManifest from '../commands/submodules/manifest.js';
import * as projectsManifest from '../commands/projects/manifest.js';
import * as groupsManifest from '../commands/groups/manifest.js';
import * as groupBadgesManifest from '../commands/group-badges/manifest.js';
import * as hooksManifest from '../commands/hooks/manifest.js';
import * as artifactsManifest from '../commands/artifacts/manifest.js';
import * as snippetsManifest from '../commands/snippets/manifest.js';
import * as desiredManifest from '../commands/desired/manifest.js';
import * as mcpManifest from '../commands/mcp/manifest.js';


const coreGroups: Record<string, string> = {
  auth: 'Log in, show who you are, log out, print the token',
  profile: 'Manage connection profiles',
};

const coreEntries: ManifestEntry[] = [
  { path: 'auth login', summary: 'Create or update a profile (prompts on a terminal)', load: () => import('../commands/auth/login.js') },
  { path: 'auth status', summary: 'Show who the token belongs to, its scopes and expiry', load: () => import('../commands/auth/status.js') },
  { path: 'auth logout', summary: 'Remove the credentials of a profile', load: () => import('../commands/auth/logout.js') },
  { path: 'auth token', summary: 'Print the active token (for scripts)', load: () => import('../commands/auth/token.js') },
  { path: 'auth migrate', summary: 'Move profile tokens between the OS keyring and the config file', load: () => import('../commands/auth/migrate.js') },
  { path: 'profile list', summary: 'List profiles', load: () => import('../commands/profile/list.js') },
  { path: 'profile show', summary: 'Show a profile (token redacted)', load: () => import('../commands/profile/show.js') },
  { path: 'profile use', summary: 'Make a profile the current one', load: () => import('../commands/profile/use.js') },
  { path: 'profile set', summary: 'Set a key of a profile', load: () => import('../commands/profile/set.js') },
  { path: 'profile remove', summary: 'Remove a profile', load: () => import('../commands/profile/remove.js') },
  { path: 'doctor', summary: 'Check the whole path: configuration, network, TLS, service, clock, token', load: () => import('../commands/doctor.js') },
  { path: 'api', summary: 'Send a raw request to the REST API', load: () => import('../commands/api.js') },
  { path: 'completion', summary: 'Print the shell completion script (bash, zsh, fish)', load: () => import('../commands/completion.js') },
  { path: 'sandbox', summary: 'Run a local simulated instance for trying forgectl and testing scripts', load: () => import('../commands/sandbox.js') },
];

/** One manifest per resource folder (src/commands/<resource>/manifest.ts). */
const areas = [tokensManifest, usersManifest, settingsManifest, planLimitsManifest, experimentsManifest, licenseManifest, storageMoveManifest, alertsManifest, mergeTrainsManifest, approvalsManifest, approvalRulesManifest, notesManifest, draftNotesManifest, integrationsManifest, badgesManifest, freezePeriodsManifest, secureFilesManifest, keysManifest, pushRuleManifest, protectedTagsManifest, mirrorManifest, repoManifest, commitsManifest, filesManifest, submodulesManifest, projectsManifest, groupsManifest, groupBadgesManifest, hooksManifest, artifactsManifest, snippetsManifest, desiredManifest, mcpManifest];

export const groups: Record<string, string> = Object.assign({}, coreGroups, ...areas.map((area) => area.groups));
/** Groups that have no command yet are left out of help. */
export const manifest: ManifestEntry[] = [...coreEntries, ...areas.flatMap((area) => area.entries)];
