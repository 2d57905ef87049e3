import { verbEntries, type ManifestEntry } from '../../cli/command.js';

export const groups: Record<string, string> = { snippets: 'Project snippets' };

export const entries: ManifestEntry[] = [
  ...verbEntries('snippets', () => import('./commands.js'), { list: 'List the snippets of a project', get: 'Show one snippet', delete: 'Remove a snippet' }),
  { path: 'snippets create', summary: 'Create a snippet from local text files (several in one request)', load: () => import('./create.js') },
  { path: 'snippets update', summary: 'Change a snippet; --sync DIR makes its files equal a folder', load: () => import('./update.js') },
  { path: 'snippets raw', summary: 'Print a snippet or one of its files', load: () => import('./raw.js') },
  { path: 'snippets user-agent', summary: 'Where a snippet was created from (administrators)', load: () => import('./user-agent.js') },
];
