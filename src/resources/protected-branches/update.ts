import { leftOut, leftOutMessage, levelLeftOut, parseWhoList, patchEntries, stillListed, type AccessEntry, type AllowedEntry, type Who } from './values.js';
import { allowedEntries } from '../../api/lookups.js';
import { routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { parseId, placementFor, placementOptions } from '../../cli/resource-commands.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { accessOptions, allowOption, KINDS, levelOption, levelsOf, ruleForOutput, type AccessOptions } from './shared.js';

type Options = AccessOptions & { project?: string; group?: string; name: string; disallowPush?: Who[]; disallowMerge?: Who[]; disallowUnprotect?: Who[] };
type Resolved = Array<{ allow: AllowedEntry[]; disallow: AllowedEntry[] }>;

/**
 * The options whose change the answer does not show: an edition without them (Free) takes the request and keeps who
 * may push, merge and unprotect (and code owner approval) as they were, without a word.
 */
function leftOutOfUpdate(opts: Options, resolved: Resolved, disallow: Record<string, Who[] | undefined>, rule: ProtectedBranch): string[] {
  const parts = KINDS.flatMap((kind, i) => {
    const listed: Array<Partial<AccessEntry>> = rule[`${kind}_access_levels`] ?? [];
    // An empty unprotect list leaves unprotecting to Maintainers.
    const answer = kind === 'unprotect' && !listed.length ? [{ access_level: 40 }] : listed;
    return [
      levelLeftOut(`--${kind}-access-level`, levelOption(opts, kind), answer),
      leftOut(`--allow-${kind}`, allowOption(opts, kind), resolved[i].allow, answer),
      stillListed(`--disallow-${kind}`, disallow[kind], resolved[i].disallow, answer),
    ];
  });
  if (opts.codeOwnerApproval !== undefined && opts.codeOwnerApproval !== rule.code_owner_approval_required) parts.push(`--${opts.codeOwnerApproval ? '' : 'no-'}code-owner-approval`);
  if (opts.allowForcePush !== undefined && opts.allowForcePush !== rule.allow_force_push) parts.push(`--${opts.allowForcePush ? '' : 'no-'}allow-force-push`);
  return parts.filter((part): part is string => part !== undefined);
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Changes only what is given: a level replaces the current role of that list, --allow-* adds users, groups or keys, --disallow-* removes them; the rest of the rule stays as it is. Changing who may push, merge or unprotect needs Premium. Needs the Maintainer role.',
  examples: [
    'forgectl protected-branches update main --project acme/api --allow-merge user:bob --allow-force-push',
    "forgectl protected-branches update 'release/*' --project acme/api --push-access-level no-access --merge-access-level maintainer",
    'forgectl protected-branches update main --projects-file services.txt --no-allow-force-push',
  ],
  fleet: 'projects-file',
  columns: ['name', 'push', 'merge', 'unprotect', 'allow_force_push'],
  recordFields: [...Object.keys(protectedBranches.fields), ...protectedBranches.computed],
  args: [{ spec: '<name>', description: 'the protected branch name or wildcard (release/*)' }],
  options: [
    ...placementOptions(protectedBranches),
    ...accessOptions(),
    ...KINDS.map((kind) => ({ flags: `--disallow-${kind} <who>`, description: `no longer allowed to ${kind}: user:NAME, group:PATH${kind === 'push' ? ', deploy-key:ID' : ''} or a role`, parse: parseWhoList(`--disallow-${kind}`, levelsOf(kind), { deployKeys: kind === 'push' }) })),
    { flags: '--allow-force-push', description: 'those who may push may also force-push' },
    { flags: '--no-allow-force-push', description: 'no force-push' },
    { flags: '--code-owner-approval', description: 'changes need a code owner approval (Premium)' },
    { flags: '--no-code-owner-approval', description: 'no code owner approval needed' },
  ],
  async run(opts, ctx) {
    const { resource, params } = placementFor(protectedBranches, opts, ctx);
    const target = { ...params, name: parseId(resource, opts.name) };
    const disallow = { push: opts.disallowPush, merge: opts.disallowMerge, unprotect: opts.disallowUnprotect };
    const asked = KINDS.some((kind) => levelOption(opts, kind) !== undefined || allowOption(opts, kind)?.length || disallow[kind]?.length);
    if (!asked && opts.allowForcePush === undefined && opts.codeOwnerApproval === undefined) {
      throw new UsageError('nothing to change', 'give a --*-access-level, --allow-*, --disallow-*, --allow-force-push or --code-owner-approval');
    }
    // Names resolve before the rule is read: a typo changes nothing.
    const resolved = await Promise.all(KINDS.map(async (kind) => ({
      allow: await allowedEntries(ctx.api, allowOption(opts, kind) ?? []),
      disallow: await allowedEntries(ctx.api, disallow[kind] ?? []),
    })));
    const current = await ctx.api.call<ProtectedBranch>(routeOf(resource, 'get'), target);
    const body: Record<string, unknown> = {};
    if (opts.allowForcePush !== undefined && opts.allowForcePush !== current.allow_force_push) body.allow_force_push = opts.allowForcePush;
    if (opts.codeOwnerApproval !== undefined && opts.codeOwnerApproval !== current.code_owner_approval_required) body.code_owner_approval_required = opts.codeOwnerApproval;
    KINDS.forEach((kind, i) => {
      const patch = patchEntries(current[`${kind}_access_levels`] ?? [], { level: levelOption(opts, kind), ...resolved[i] });
      if (patch.length) body[`allowed_to_${kind}`] = patch;
    });
    if (!Object.keys(body).length) {
      ctx.io.note(`protected branch "${current.name}" already is as asked; nothing sent`);
      return ruleForOutput(current, ctx);
    }
    const rule = await ctx.api.call<ProtectedBranch>(routeOf(resource, 'update'), { ...target, ...body });
    const parts = leftOutOfUpdate(opts, resolved, disallow, rule);
    const shown = await ruleForOutput(rule, ctx);
    return parts.length ? new ResultWithExit(shown, ExitCode.attention, leftOutMessage(parts)) : shown;
  },
});
