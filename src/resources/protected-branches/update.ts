import { parseWhoList, patchEntries, type Who } from './values.js';
import { allowedEntries } from '../../api/lookups.js';
import { routeOf } from '../../api/resource.js';
import { protectedBranches, type ProtectedBranch } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { parseId, placementFor, placementOptions } from '../../cli/resource-commands.js';
import { UsageError } from '../../errors.js';
import { accessOptions, allowOption, KINDS, levelOption, levelsOf, ruleForOutput, type AccessOptions } from './shared.js';

type Options = AccessOptions & { project?: string; group?: string; name: string; disallowPush?: Who[]; disallowMerge?: Who[]; disallowUnprotect?: Who[] };

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
    return ruleForOutput(await ctx.api.call<ProtectedBranch>(routeOf(resource, 'update'), { ...target, ...body }), ctx);
  },
});
