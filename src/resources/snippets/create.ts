import { basename } from 'node:path';
import { snippets, SNIPPET_VISIBILITIES } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption } from '../../cli/options.js';
import { parseChoice, parseKeyValue } from '../../parse.js';
import { UsageError } from '../../errors.js';
import { readText, snippetPath } from './shared.js';

interface Options {
  project?: string;
  files: string[];
  title: string;
  description?: string;
  visibility?: string;
  name?: Array<[string, string]>;
  filename?: string;
}

export default defineCommand<Options>({
  effect: 'write',
  description:
    'Creates a snippet of one or more local text files in one request (each under its base name unless --name says otherwise); ' +
    '- reads one file from stdin, named by --filename. Binary files are refused: snippets hold text. Needs the Reporter role.',
  examples: [
    'forgectl snippets create --project acme/api --title "Deploy notes" checklist.md rollback.md',
    "kubectl get pods -o yaml | forgectl snippets create --project acme/api --title 'pods at 3am' --filename pods.yaml -",
    'forgectl snippets create --project acme/api --title probe --visibility internal --name ./scripts/probe.sh=probe.sh ./scripts/probe.sh',
  ],
  args: [{ spec: '[files...]', description: 'local files to put in the snippet, or - for one from stdin', localFile: true }],
  options: [
    projectOption,
    { flags: '--title <title>', description: 'the title', required: true },
    { flags: '--description <text>', description: 'a description' },
    { flags: '--visibility <visibility>', description: 'private (default; project members), internal (signed-in users) or public', parse: parseChoice('--visibility', SNIPPET_VISIBILITIES) },
    { flags: '--name <local=path>', description: 'the path a local file gets in the snippet (repeatable)', parse: parseKeyValue('--name'), localFile: true },
    { flags: '--filename <name>', description: 'the name of the file read from stdin (-)' },
  ],
  async run(opts, ctx) {
    if (!opts.files.length) throw new UsageError('give the files of the snippet', 'or - to read one from stdin (with --filename)');
    const names = new Map(opts.name ?? []);
    for (const local of names.keys()) if (!opts.files.includes(local)) throw new UsageError(`--name ${local}=…: ${local} is not one of the files given`);
    if (opts.files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be given once');
    if (opts.filename && !opts.files.includes('-')) throw new UsageError('--filename names the file read from stdin (-)');
    const files: Array<{ file_path: string; content: string }> = [];
    for (const local of opts.files) {
      let path: string;
      let content: string;
      if (local === '-') {
        if (!opts.filename) throw new UsageError('a file from stdin needs a name: --filename NAME');
        path = snippetPath(opts.filename, '--filename');
        content = readText('stdin', await ctx.io.readStdinBuffer());
      } else {
        path = snippetPath(names.get(local) ?? basename(local), names.has(local) ? `--name ${local}` : local);
        content = readText(local);
      }
      if (files.some((f) => f.file_path === path)) throw new UsageError(`two files would be named ${path} in the snippet`, 'give one of them another name with --name LOCAL=PATH');
      files.push({ file_path: path, content });
    }
    return ctx.api.call(snippets.parents.project.routes.create, {
      project: ctx.project(opts.project),
      title: opts.title,
      description: opts.description,
      visibility: opts.visibility,
      files,
    });
  },
});
