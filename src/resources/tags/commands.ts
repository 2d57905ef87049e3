import { tags } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { checkProtectedDeletion } from '../branches/protected-ref.js';

export default plainCommands(tags, {
  list: {
    description: 'Newest first; --search v1 finds names containing it, ^v1 names starting with it.',
    examples: ['forgectl tags list --project acme/api', 'forgectl tags list --project acme/api --search ^v1'],
  },
  get: { examples: ['forgectl tags get v1.1.0 --project acme/api'] },
  create: {
    description: 'With --message the tag is annotated; without it, lightweight.',
    examples: ['forgectl tags create --project acme/api --name v1.2.0 --ref main --message "Release 1.2.0"', 'forgectl tags create --project acme/api --name nightly --ref feature'],
  },
  delete: {
    description: 'A protected tag only Maintainers and Owners delete (said before anything is sent), and only named in its project alone: over several projects (--group, --projects-file) it is left alone (exit 9).',
    examples: ['forgectl tags delete v1.0.0 --project acme/api --yes'],
    async inspect(tag: { name: string; protected?: boolean }, _where, ctx, params) {
      return tag.protected ? checkProtectedDeletion(ctx, String(params.project), 'tag', tag.name) : undefined;
    },
  },
});
