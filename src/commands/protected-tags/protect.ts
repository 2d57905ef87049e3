import { defineCommand } from '../../cli/command.js';
import { UsageError } from '../../errors.js';
import { projectOption } from '../../cli/options.js';
import { parseAccessLevel } from '../../parse.js';
import { protectedTags } from '../../api/resources/protected-tags.js';

/** Access levels a protected tag accepts: no access, Developer, Maintainer. */
const TAG_LEVELS = [0, 30, 40];

type AllowedEntry = { user_id: number } | { group_id: number } | { deploy_key_id: number } | { access_level: number };

/** user:ID, group:ID, deploy-key:ID or an access level, comma-separated and repeatable. */
function parseAllowed(value: string, previous: AllowedEntry[] = []): AllowedEntry[] {
  const entries = value.split(',').map((item) => item.trim()).filter(Boolean).map((item): AllowedEntry => {
    const match = /^(user|group|deploy-key|deploy_key):(\d+)$/i.exec(item);
    if (match) {
      const id = Number(match[2]);
      const kind = match[1].toLowerCase();
      return kind === 'user' ? { user_id: id } : kind === 'group' ? { group_id: id } : { deploy_key_id: id };
    }
    try {
      return { access_level: parseAccessLevel('--allowed-to-create', TAG_LEVELS)(item) };
    } catch {
      throw new UsageError(`--allowed-to-create takes user:ID, group:ID, deploy-key:ID or an access level (no-access, developer, maintainer); got "${item}"`);
    }
  });
  return [...previous, ...entries];
}

export default defineCommand<{ project?: string; name: string; createAccessLevel?: number; allowedToCreate?: AllowedEntry[] }>({
  description: 'Protects a tag name or wildcard. --allowed-to-create needs Premium; users must be project members, groups must have the project shared with them, deploy keys must be enabled on it.',
  examples: [
    "forgectl protected-tags protect --project acme/api --name 'v*' --create-access-level maintainer",
    "forgectl protected-tags protect --project acme/api --name 'hotfix-*' --create-access-level no-access --allowed-to-create user:2,deploy-key:3",
  ],
  options: [
    projectOption,
    { flags: '--name <tag>', description: 'tag name or wildcard such as v* or *-stable', required: true },
    { flags: '--create-access-level <level>', description: 'who may create matching tags: no-access, developer, maintainer or 0/30/40 (default maintainer)', parse: parseAccessLevel('--create-access-level', TAG_LEVELS) },
    { flags: '--allowed-to-create <list>', description: 'more who may create: user:ID, group:ID, deploy-key:ID, or an access level (repeatable)', parse: parseAllowed },
  ],
  async run(opts, ctx) {
    if (!opts.name.trim()) throw new UsageError('--name must not be empty');
    return ctx.api.call(protectedTags.routes.create, {
      project: ctx.project(opts.project),
      name: opts.name,
      create_access_level: opts.createAccessLevel,
      allowed_to_create: opts.allowedToCreate,
    });
  },
});
