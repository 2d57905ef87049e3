import { projectSnippets, type SnippetRecord } from './resource.js';
import { plainCommands } from '../../cli/resource-commands.js';

/** The plain verbs of project snippets; create, update, raw and user-agent are their own modules. */
export default plainCommands(projectSnippets, {
  list: {
    description: 'PATHS are the files of each snippet.',
    examples: ['forgectl snippets list --project acme/api', 'forgectl snippets list --project acme/api -o json --fields id,title,files'],
    map: (snippet: SnippetRecord) => ({ ...snippet, paths: (snippet.files ?? []).map((f) => f.path).join(',') }),
  },
  get: { examples: ['forgectl snippets get 1 --project acme/api'] },
  delete: {
    description: 'Only its author or a Maintainer may delete a snippet.',
    examples: ['forgectl snippets delete 1 --project acme/api --yes'],
    inspect: (snippet: SnippetRecord) => snippet.title,
  },
});
