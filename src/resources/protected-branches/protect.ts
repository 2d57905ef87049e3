import { allowedEntries } from '../../api/lookups.js';
import { routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { leftOut, leftOutMessage, type AllowedEntry } from './values.js';
import { accessOptions, allowOption, KINDS, levelOption, ruleForOutput, type AccessOptions } from './shared.js';

export default defineCommand<AccessOptions & { project?: string; group?: string; name: string }>({
  effect: 'write',
  description:
    'Protects a branch name or wildcard (release/*, *-stable). Without a level or --allow-*, Maintainers push and merge. Users must be members, groups must have the project shared with them; names are resolved before anything is sent. Group rules (--group) need Premium. --projects-file protects it in every project the file names. Needs the Maintainer role.',
  examples: [
    "forgectl protected-branches protect --project acme/api --name 'stable/*' --push-access-level maintainer --merge-access-level developer",
    'forgectl protected-branches protect --project acme/api --name hotfix --push-access-level no-access --allow-push user:alice,user:bob --allow-force-push',
    'forgectl protected-branches protect --group acme --name production --allow-merge group:acme',
    "forgectl protected-branches protect --projects-file services.txt --name 'hotfix/*' --push-access-level maintainer --merge-access-level maintainer",
  ],
  fleet: 'projects-file',
  columns: ['name', 'push', 'merge', 'unprotect', 'allow_force_push'],
  recordFields: [...Object.keys(protectedBranches.fields), ...protectedBranches.computed],
  options: [
    ...placementOptions(protectedBranches),
    { flags: '--name <branch>', description: 'branch name or wildcard such as release/* or *-stable', required: true },
    ...accessOptions(),
    { flags: '--allow-force-push', description: 'those who may push may also force-push' },
    { flags: '--code-owner-approval', description: 'changes need a code owner approval (Premium)' },
  ],
  async run(opts, ctx) {
    if (!opts.name.trim()) throw new UsageError('--name must not be empty');
    const { resource, params } = placementFor(protectedBranches, opts, ctx);
    const body: Record<string, unknown> = { name: opts.name, allow_force_push: opts.allowForcePush, code_owner_approval_required: opts.codeOwnerApproval };
    for (const kind of KINDS) {
      body[`${kind}_access_level`] = levelOption(opts, kind);
      const allowed = allowOption(opts, kind);
      if (allowed?.length) body[`allowed_to_${kind}`] = await allowedEntries(ctx.api, allowed);
    }
    const rule = await ctx.api.call<ProtectedBranch>(routeOf(resource, 'create'), { ...params, ...body });
    const missing = KINDS.map((kind) => leftOut(`--allow-${kind}`, allowOption(opts, kind), body[`allowed_to_${kind}`] as AllowedEntry[] | undefined, rule[`${kind}_access_levels`]));
    if (opts.codeOwnerApproval && !rule.code_owner_approval_required) missing.push('--code-owner-approval');
    const parts = missing.filter((part): part is string => part !== undefined);
    const shown = await ruleForOutput(rule, ctx);
    return parts.length ? new ResultWithExit(shown, ExitCode.attention, leftOutMessage(parts)) : shown;
  },
});
