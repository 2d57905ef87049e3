import type { Db } from '../db.js';
import type { SandboxModule } from '../module.js';
import { core } from './core.js';
import { tokens } from './tokens.js';
import { users } from './users.js';
import { userExtras } from './user-extras.js';
import { settings } from './settings.js';
import { planLimits } from './plan-limits.js';
import { experiments } from './experiments.js';
import { licenses } from './licenses.js';
import { storageMoves } from './storage-moves.js';
import { alerts } from './alerts.js';
import { mergeTrains } from './merge-trains.js';
import { approvals } from './approvals.js';
import { notes } from './notes.js';
import { draftNotes } from './draft-notes.js';
import { integrations } from './integrations.js';
import { badges } from './badges.js';
import { freezePeriods } from './freeze-periods.js';
import { secureFiles } from './secure-files.js';
import { keys } from './keys.js';
import { pushRules } from './push-rules.js';
import { protectedBranchesModule } from './protected-branches.js';
import { protectedTags } from './protected-tags.js';
import { mirrors } from './mirrors.js';
import { repository } from './repository.js';
import { commits } from './commits.js';
import { branchesModule } from './branches.js';
import { files } from './files.js';
import { projects } from './projects.js';
import { groups } from './groups.js';
import { memberSeed, members } from './members.js';
import { groupBadges } from './group-badges.js';
import { userAccounts } from './user-accounts.js';
import { mergeRequests } from './merge-requests.js';
import { mergeRequestApprovalRules } from './merge-request-approval-rules.js';
import { pipelinesModule } from './pipelines.js';
import { hooksModule } from './hooks.js';
import { snippetsModule } from './snippets.js';
import { personalSnippetsModule } from './personal-snippets.js';
import { fleet } from './fleet.js';
import { variables } from './variables.js';
import { deployTokens } from './deploy-tokens.js';
import { runnersModule } from './runners.js';
import { avatars } from '../avatars.js';
import { auditEvents } from './audit-events.js';


/** Every sandbox module, in registration order. */
export const modules: SandboxModule[] = [
  core,
  projects,
  groups,
  members,
  groupBadges,
  userAccounts,
  mergeRequests,
  mergeRequestApprovalRules,
  tokens,
  users,
  userExtras,
  settings,
  planLimits,
  experiments,
  licenses,
  storageMoves,
  alerts,
  mergeTrains,
  approvals,
  notes,
  draftNotes,
  integrations,
  badges,
  freezePeriods,
  secureFiles,
  keys,
  pushRules,
  protectedTags,
  protectedBranchesModule,
  mirrors,
  repository,
  commits,
  branchesModule,
  files,
  pipelinesModule,
  hooksModule,
  snippetsModule,
  personalSnippetsModule,
  fleet,
  deployTokens,
  runnersModule,
  memberSeed,
  avatars,
  // After fleet: its projects get variables too.
  variables,
  // Last: its seed names records the others seeded.
  auditEvents,
];

export function sandboxEnv(sandbox: { rootUrl: string; db: Db }): Record<string, string> {
  return Object.assign({}, ...modules.map((module) => module.env?.(sandbox) ?? {}));
}
