import { verbEntries } from '../../cli/command.js';

export const groups: Record<string, string> = { tags: 'Tags of a repository' };

export const entries = verbEntries('tags', () => import('./commands.js'), {
  list: 'List the tags of a project, newest first',
  get: 'Show one tag and its commit',
  create: 'Create a tag (annotated with --message)',
  delete: 'Delete a tag',
});
