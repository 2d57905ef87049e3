import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { tagsPath } from './shared.js';

interface ProtectedTag {
  name: string;
  create_access_levels: Array<{ access_level_description?: string }>;
  [key: string]: unknown;
}

/** Who may create matching tags, in words, for the table ("Maintainers, alice"). */
export function withAllowedToCreate(tag: ProtectedTag): ProtectedTag & { allowed_to_create: string } {
  return { ...tag, allowed_to_create: tag.create_access_levels.map((level) => level.access_level_description ?? '').filter(Boolean).join(', ') };
}

export default defineCommand<{ project?: string }>({
  examples: ['forgectl protected-tags list --project acme/api', 'forgectl protected-tags list --project acme/api -o json'],
  options: [projectOption],
  list: true,
  columns: ['name', 'allowed_to_create'],
  async run(opts, ctx) {
    return ctx.api.list<ProtectedTag>(tagsPath(ctx.project(opts.project)), {}, ctx.paging).map(withAllowedToCreate);
  },
});
