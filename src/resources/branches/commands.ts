import { branches } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';
import { checkProtectedDeletion } from './protected-ref.js';

export default plainCommands(branches, {
  list: {
    description: 'Branches in name order; --search main finds names containing it, ^text names starting with it.',
    examples: ['forgectl branches list --project acme/api', 'forgectl branches list --project acme/api --search ^feat'],
  },
  get: { examples: ['forgectl branches get feature --project acme/api', 'forgectl branches get main --project acme/api --fields name,commit'] },
  create: { examples: ['forgectl branches create --project acme/api --branch release/1.2 --ref main'] },
  delete: {
    description: 'The default branch cannot be deleted; a protected branch only by Maintainers and Owners (said before anything is sent), and only named in its project alone: over several projects (--group, --projects-file) it is left alone (exit 9).',
    examples: ['forgectl branches delete stable --project acme/api --yes'],
    async inspect(branch: { name: string; merged: boolean; protected: boolean }, _where, ctx, params) {
      const words = [branch.protected ? await checkProtectedDeletion(ctx, String(params.project), 'branch', branch.name) : '', branch.merged ? '' : 'not merged'];
      return words.filter(Boolean).join(', ') || undefined;
    },
  },
});
