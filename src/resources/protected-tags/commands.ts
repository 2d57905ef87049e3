import { protectedTags, type ProtectedTag } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

/** Who may create matching tags, in words, for the table ("Maintainers, alice"). */
function withAllowedToCreate(tag: ProtectedTag): ProtectedTag & { allowed_to_create: string } {
  return { ...tag, allowed_to_create: (tag.create_access_levels ?? []).map((level) => level.access_level_description ?? '').filter(Boolean).join(', ') };
}

export default plainCommands(protectedTags, {
  list: {
    examples: ['forgectl protected-tags list --project acme/api', 'forgectl protected-tags list --project acme/api -o json'],
    map: withAllowedToCreate,
    columns: ['name', 'allowed_to_create'],
  },
  get: { examples: ["forgectl protected-tags get 'release-*' --project acme/api"] },
});
