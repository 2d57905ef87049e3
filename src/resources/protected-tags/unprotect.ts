import { protectedTags, type ProtectedTag } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseId, recordOf } from '../../cli/resource-commands.js';

export default defineCommand<{ project?: string; name: string }>({
  effect: 'destructive',
  description: 'Removes the rule (the tags stay), after finding it and asking (--yes off a terminal). Needs the Maintainer role.',
  examples: ["forgectl protected-tags unprotect 'release-*' --project acme/api --yes"],
  args: [{ spec: '<name>', description: 'the protected tag name or wildcard (v*)' }],
  options: [projectOption],
  record: recordOf(protectedTags),
  async run(opts, ctx) {
    const name = parseId(protectedTags, opts.name);
    const project = ctx.project(opts.project);
    // Found first: a name that is not protected fails before the question, and the question says who may create now.
    const rule = await ctx.api.call<ProtectedTag>(protectedTags.routes.get, { project, name });
    const creators = (rule.create_access_levels ?? []).map((level) => level.access_level_description).filter(Boolean).join(', ');
    await ctx.confirm(`Unprotect tags "${opts.name}" of project ${project}${creators ? ` (create: ${creators})` : ''}?`);
    await ctx.api.call(protectedTags.routes.delete, { project, name });
    ctx.io.note(`Unprotected tags "${opts.name}" of project ${project}`);
    return undefined;
  },
});
