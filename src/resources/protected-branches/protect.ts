import { allowedEntries } from '../../api/lookups.js';
import { routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { defineCommand, type Context } from '../../cli/command.js';
import { placementFor, placementOptions } from '../../cli/resource-commands.js';
import { ExitCode, type ApiError } from '../../errors.js';
import { argumentOrName } from '../../cli/options.js';
import { ResultWithExit } from '../../output/result.js';
import { leftOut, leftOutMessage, protectedAlready, type AllowedEntry } from './values.js';
import { ACCESS_LEVELS, shellQuote } from '../../parse.js';
import { accessOptions, allowOption, KINDS, levelOption, ruleDifferences, ruleForOutput, type AccessOptions } from './shared.js';

/**
 * A re-run of protect (a bulk run again from its --failed-to file): a branch protected already as asked is done; one
 * protected differently is refused, saying what differs and how to change it.
 */
async function refuseUnlessAsAsked(ctx: Context, refusal: ApiError, rule: ProtectedBranch, body: Record<string, unknown>, what: string): Promise<void> {
  const lists = KINDS.map((kind) => ({
    label: kind,
    // Without a level the service lets Maintainers push and merge; an empty unprotect list leaves it to Maintainers.
    asked: [{ access_level: (body[`${kind}_access_level`] as number | undefined) ?? ACCESS_LEVELS.maintainer }, ...((body[`allowed_to_${kind}`] as AllowedEntry[] | undefined) ?? [])],
    have: kind === 'unprotect' && !rule.unprotect_access_levels?.length ? [{ access_level: ACCESS_LEVELS.maintainer }] : rule[`${kind}_access_levels`] ?? [],
  }));
  const differences = await ruleDifferences(ctx.api, lists);
  for (const [field, label] of [['allow_force_push', 'force push'], ['code_owner_approval_required', 'code owner approval']] as const) {
    const asked = Boolean(body[field]);
    if (asked !== Boolean(rule[field])) differences.push(`${label}: ${rule[field] ? 'on' : 'off'} there, ${asked ? 'on' : 'off'} asked`);
  }
  if (!differences.length) return ctx.io.note(`${what} is already protected as asked`);
  throw refusal.explained(`${what} is already protected, differently (${differences.join('; ')})`, `change it with forgectl protected-branches update ${shellQuote(rule.name)} (a level replaces the role, --allow-* and --disallow-* add and remove users, groups and keys, --[no-]allow-force-push), or unprotect it and protect it again`);
}

export default defineCommand<AccessOptions & { project?: string; group?: string; name?: string; branch?: string }>({
  effect: 'write',
  description:
    'Protects a branch name or wildcard (release/*, *-stable). Without a level or --allow-*, Maintainers push and merge. Users must be members, groups must have the project shared with them; names are resolved before anything is sent. Group rules (--group) need Premium. --projects-file protects it in every project the file names. A branch protected already as asked is left as it is (exit 0); protected differently, the command says what differs (protected-branches update changes it). Needs the Maintainer role.',
  examples: [
    "forgectl protected-branches protect 'stable/*' --project acme/api --push-access-level maintainer --merge-access-level developer",
    'forgectl protected-branches protect hotfix --project acme/api --push-access-level no-access --allow-push user:alice,user:bob --allow-force-push',
    'forgectl protected-branches protect production --group acme --allow-merge group:acme',
    "forgectl protected-branches protect 'hotfix/*' --projects-file services.txt --push-access-level maintainer --merge-access-level maintainer",
  ],
  fleet: 'projects-file',
  columns: ['name', 'push', 'merge', 'unprotect', 'allow_force_push'],
  recordFields: [...Object.keys(protectedBranches.fields), ...protectedBranches.computed],
  options: [
    ...placementOptions(protectedBranches),
    { flags: '--name <branch>', description: 'branch name or wildcard such as release/* or *-stable (or as the argument)' },
    ...accessOptions(),
    { flags: '--allow-force-push', description: 'those who may push may also force-push' },
    { flags: '--code-owner-approval', description: 'changes need a code owner approval (Premium)' },
  ],
  args: [{ spec: '[branch]', description: 'branch name or wildcard (the same as --name)' }],
  async run(opts, ctx) {
    const name = argumentOrName(opts.branch, opts.name, 'branch name', 'forgectl protected-branches protect NAME --project ID|PATH');
    const { resource, params, where } = placementFor(protectedBranches, opts, ctx);
    const body: Record<string, unknown> = { name, allow_force_push: opts.allowForcePush, code_owner_approval_required: opts.codeOwnerApproval };
    for (const kind of KINDS) {
      body[`${kind}_access_level`] = levelOption(opts, kind);
      const allowed = allowOption(opts, kind);
      if (allowed?.length) body[`allowed_to_${kind}`] = await allowedEntries(ctx.api, allowed);
    }
    let rule: ProtectedBranch;
    try {
      rule = await ctx.api.call<ProtectedBranch>(routeOf(resource, 'create'), { ...params, ...body });
    } catch (error) {
      if (!protectedAlready(error)) throw error;
      const existing = await ctx.api.call<ProtectedBranch>(routeOf(resource, 'get'), { ...params, name: name });
      await refuseUnlessAsAsked(ctx, error, existing, body, `branch ${name} of ${where}`);
      return ruleForOutput(existing, ctx);
    }
    const missing = KINDS.map((kind) => leftOut(`--allow-${kind}`, allowOption(opts, kind), body[`allowed_to_${kind}`] as AllowedEntry[] | undefined, rule[`${kind}_access_levels`]));
    if (opts.codeOwnerApproval && !rule.code_owner_approval_required) missing.push('--code-owner-approval');
    const parts = missing.filter((part): part is string => part !== undefined);
    const shown = await ruleForOutput(rule, ctx);
    return parts.length ? new ResultWithExit(shown, ExitCode.attention, leftOutMessage(parts)) : shown;
  },
});
