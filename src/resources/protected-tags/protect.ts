import { defineCommand, type Context } from '../../cli/command.js';
import { ExitCode, type ApiError } from '../../errors.js';
import { ResultWithExit } from '../../output/result.js';
import { leftOut, leftOutMessage, parseWhoList, protectedAlready, type AllowedEntry, type Who } from '../protected-branches/values.js';
import { ruleDifferences } from '../protected-branches/shared.js';
import { allowedEntries } from '../../api/lookups.js';
import { argumentOrName, projectOption } from '../../cli/options.js';
import { ACCESS_LEVELS, parseAccessLevel, shellQuote } from '../../parse.js';
import { protectedTags, type ProtectedTag } from './resource.js';

/** Access levels a protected tag accepts: no access, Developer, Maintainer. */
const TAG_LEVELS = [0, 30, 40];

/**
 * A re-run of protect (a bulk run again from its --failed-to file): a tag protected already as asked is done; one
 * protected differently is refused, saying what differs. The service has no update of a protected tag.
 */
async function protectedAsAsked(ctx: Context, refusal: ApiError, project: string, name: string, asked: AllowedEntry[]): Promise<ProtectedTag> {
  const tag = await ctx.api.call<ProtectedTag>(protectedTags.routes.get, { project, name });
  const what = `tag ${name} of project ${project}`;
  const differences = await ruleDifferences(ctx.api, [{ label: 'create', asked, have: tag.create_access_levels ?? [] }]);
  if (!differences.length) {
    ctx.io.note(`${what} is already protected as asked`);
    return tag;
  }
  throw refusal.explained(`${what} is already protected, differently (${differences.join('; ')})`, `a protected tag cannot be changed: unprotect it (forgectl protected-tags unprotect ${shellQuote(name)} --project ${project} --yes), then protect it again`);
}

export default defineCommand<{ project?: string; name?: string; tag?: string; createAccessLevel?: number; allowedToCreate?: Who[] }>({
  effect: 'write',
  description: 'Protects a tag name or wildcard. --allowed-to-create needs Premium; users must be project members, groups must have the project shared with them, deploy keys must be enabled on it. A tag protected already as asked is left as it is (exit 0); protected differently, the command says what differs.',
  examples: [
    "forgectl protected-tags protect 'v*' --project acme/api --create-access-level maintainer",
    "forgectl protected-tags protect 'hotfix-*' --project acme/api --create-access-level no-access --allowed-to-create user:alice,deploy-key:3",
  ],
  options: [
    projectOption,
    { flags: '--name <tag>', description: 'tag name or wildcard such as v* or *-stable (or as the argument)' },
    { flags: '--create-access-level <level>', description: 'who may create matching tags: no-access, developer, maintainer or 0/30/40 (default maintainer)', parse: parseAccessLevel('--create-access-level', TAG_LEVELS) },
    { flags: '--allowed-to-create <list>', description: 'more who may create: user:NAME, group:PATH, deploy-key:ID, or an access level (repeatable)', parse: parseWhoList('--allowed-to-create', TAG_LEVELS, { deployKeys: true }) },
  ],
  args: [{ spec: '[tag]', description: 'tag name or wildcard (the same as --name)' }],
  async run(opts, ctx) {
    const name = argumentOrName(opts.tag, opts.name, 'tag name', 'forgectl protected-tags protect NAME --project ID|PATH');
    const allowed = opts.allowedToCreate?.length ? await allowedEntries(ctx.api, opts.allowedToCreate) : undefined;
    const project = ctx.project(opts.project);
    let tag: ProtectedTag;
    try {
      tag = await ctx.api.call<ProtectedTag>(protectedTags.routes.create, { project, name, create_access_level: opts.createAccessLevel, allowed_to_create: allowed });
    } catch (error) {
      if (!protectedAlready(error)) throw error;
      return protectedAsAsked(ctx, error, project, name, [{ access_level: opts.createAccessLevel ?? ACCESS_LEVELS.maintainer }, ...(allowed ?? [])]);
    }
    const missing = leftOut('--allowed-to-create', opts.allowedToCreate, allowed, tag.create_access_levels);
    return missing ? new ResultWithExit(tag, ExitCode.attention, leftOutMessage([missing])) : tag;
  },
});
