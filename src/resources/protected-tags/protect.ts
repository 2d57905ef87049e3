import { defineCommand } from '../../cli/command.js';
import { ExitCode, UsageError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { leftOut, leftOutMessage, parseWhoList, type Who } from '../protected-branches/values.js';
import { allowedEntries } from '../../api/lookups.js';
import { projectOption } from '../../cli/options.js';
import { parseAccessLevel } from '../../parse.js';
import { protectedTags, type ProtectedTag } from './resource.js';

/** Access levels a protected tag accepts: no access, Developer, Maintainer. */
const TAG_LEVELS = [0, 30, 40];

export default defineCommand<{ project?: string; name: string; createAccessLevel?: number; allowedToCreate?: Who[] }>({
  effect: 'write',
  description: 'Protects a tag name or wildcard. --allowed-to-create needs Premium; users must be project members, groups must have the project shared with them, deploy keys must be enabled on it.',
  examples: [
    "forgectl protected-tags protect --project acme/api --name 'v*' --create-access-level maintainer",
    "forgectl protected-tags protect --project acme/api --name 'hotfix-*' --create-access-level no-access --allowed-to-create user:alice,deploy-key:3",
  ],
  options: [
    projectOption,
    { flags: '--name <tag>', description: 'tag name or wildcard such as v* or *-stable', required: true },
    { flags: '--create-access-level <level>', description: 'who may create matching tags: no-access, developer, maintainer or 0/30/40 (default maintainer)', parse: parseAccessLevel('--create-access-level', TAG_LEVELS) },
    { flags: '--allowed-to-create <list>', description: 'more who may create: user:NAME, group:PATH, deploy-key:ID, or an access level (repeatable)', parse: parseWhoList('--allowed-to-create', TAG_LEVELS, { deployKeys: true }) },
  ],
  async run(opts, ctx) {
    if (!opts.name.trim()) throw new UsageError('--name must not be empty');
    const allowed = opts.allowedToCreate?.length ? await allowedEntries(ctx.api, opts.allowedToCreate) : undefined;
    const tag = await ctx.api.call<ProtectedTag>(protectedTags.routes.create, { project: ctx.project(opts.project), name: opts.name, create_access_level: opts.createAccessLevel, allowed_to_create: allowed });
    const missing = leftOut('--allowed-to-create', opts.allowedToCreate, allowed, tag.create_access_levels);
    return missing ? new ResultWithExit(tag, ExitCode.attention, leftOutMessage([missing])) : tag;
  },
});
