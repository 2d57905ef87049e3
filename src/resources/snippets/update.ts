import { snippets, SNIPPET_BRANCH, SNIPPET_VISIBILITIES, type SnippetFileAction, type SnippetRecord } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { collect, parseChoice, parseInteger, plural } from '../../parse.js';
import { UsageError } from '../../errors.js';
import { folderFiles, parseLocal, parseMove, readText, snippetPath, syncActions } from './shared.js';

interface Options {
  project?: string;
  id: string;
  title?: string;
  description?: string;
  visibility?: string;
  add?: Array<[string, string]>;
  update?: Array<[string, string]>;
  delete?: string[];
  move?: Array<[string, string]>;
  sync?: string;
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Changes a snippet in one request: its title, description or visibility, and its files with --add, --update, --delete and --move ' +
    '(LOCAL[:PATH]: a local file and its path in the snippet, its base name by default). --sync DIR computes the actions that make ' +
    'the snippet equal a local folder: new files created, changed ones updated, missing ones deleted, renamed ones moved. Only its ' +
    'author or a Maintainer may change a snippet.',
  examples: [
    'forgectl snippets update 1 --project acme/api --sync ./notes/',
    'forgectl snippets update 1 --project acme/api --update checklist.md --add ./new.md:steps/new.md --delete rollback.md',
    'forgectl snippets update 1 --project acme/api --move checklist.md:docs/checklist.md --title "Deploy checklist v2"',
  ],
  args: [{ spec: '<id>', description: 'the snippet\'s ID' }],
  options: [
    projectOption,
    { flags: '--title <title>', description: 'a new title' },
    { flags: '--description <text>', description: 'a new description' },
    { flags: '--visibility <visibility>', description: 'private, internal or public', parse: parseChoice('--visibility', SNIPPET_VISIBILITIES) },
    { flags: '--add <local[:path]>', description: 'add a local file (repeatable)', parse: parseLocal, localFile: true },
    { flags: '--update <local[:path]>', description: 'replace a file with a local one (repeatable)', parse: parseLocal, localFile: true },
    { flags: '--delete <path>', description: 'remove a file of the snippet (repeatable)', parse: collect },
    { flags: '--move <old:new>', description: 'rename a file of the snippet (repeatable)', parse: parseMove },
    { flags: '--sync <dir>', description: 'make the files equal those of a local folder (create, update, delete, move)', localFile: true },
  ],
  async run(opts, ctx) {
    const id = parseInteger('snippet id', 1)(opts.id);
    const route = { project: ctx.project(opts.project), snippet_id: id };
    const explicit = Boolean(opts.add?.length || opts.update?.length || opts.delete?.length || opts.move?.length);
    if (opts.sync && explicit) throw new UsageError('--sync computes the file actions itself; give it alone, or --add/--update/--delete/--move without it');
    const actions: SnippetFileAction[] = [
      ...(opts.add ?? []).map(([local, path]): SnippetFileAction => ({ action: 'create', file_path: path, content: readText(local) })),
      ...(opts.update ?? []).map(([local, path]): SnippetFileAction => ({ action: 'update', file_path: path, content: readText(local) })),
      ...(opts.delete ?? []).map((path): SnippetFileAction => ({ action: 'delete', file_path: snippetPath(path, '--delete') })),
      ...(opts.move ?? []).map(([from, to]): SnippetFileAction => ({ action: 'move', previous_path: from, file_path: to })),
    ];
    if (opts.sync) {
      const local = folderFiles(opts.sync, (text) => ctx.io.warn(text));
      if (!local.size) throw new UsageError(`${opts.sync} has no files: a snippet needs at least one`);
      const current = await ctx.api.call<SnippetRecord>(snippets.parents.project.routes.get, route);
      const remote = new Map<string, string>();
      for (const { path } of current.files) {
        const response = await ctx.api.open(snippets.parents.project.routes.fileRaw, { ...route, ref: SNIPPET_BRANCH, file_path: path });
        remote.set(path, await response.text());
      }
      actions.push(...syncActions(remote, local));
      if (!actions.length && opts.title === undefined && opts.description === undefined && opts.visibility === undefined) {
        ctx.io.note(`snippet ${id} already matches ${opts.sync}: nothing to change`);
        return current;
      }
      for (const action of actions) ctx.io.note(`${action.action} ${action.previous_path ? `${action.previous_path} → ` : ''}${action.file_path}`);
      const deleted = actions.filter((action) => action.action === 'delete').length;
      if (deleted) await ctx.confirm(`Delete ${plural(deleted, 'file')} of snippet ${id} of project ${route.project} (--sync)?`);
    }
    const body = { title: opts.title, description: opts.description, visibility: opts.visibility, files: actions.length ? actions : undefined };
    if (Object.values(body).every((value) => value === undefined)) {
      throw new UsageError('nothing to change', 'give --title, --description, --visibility, --add, --update, --delete, --move or --sync');
    }
    return ctx.api.call(snippets.parents.project.routes.update, { ...route, ...body });
  },
});
