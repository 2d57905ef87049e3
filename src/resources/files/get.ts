import { repositoryFiles } from './resource.js';
import { defineCommand } from '../../cli/command.js';
import { projectOption, repoPathArg } from '../../cli/options.js';
import { repoPath } from '../../git/content.js';
import { refOption, refOrDefault } from './shared.js';

export default defineCommand<{ project?: string; path: string; ref?: string }>({
  effect: 'read',
  description: 'Shows the file\'s metadata and its content, decoded (binary content stays base64, with encoding "base64").',
  examples: ['forgectl files get README.md --ref main --project acme/api', 'forgectl files get src/main.rb --ref v1.0.0 --project acme/api -o json'],
  args: [repoPathArg],
  options: [projectOption, refOption(false)],
  async run(opts, ctx) {
    const project = ctx.project(opts.project);
    const file = await ctx.api.call<Record<string, unknown> & { content: string }>(repositoryFiles.routes.get, {
      project,
      file_path: repoPath(opts.path),
      ref: await refOrDefault(ctx, project, opts.ref),
    });
    const bytes = Buffer.from(file.content, 'base64');
    const text = bytes.toString('utf8');
    const isText = !bytes.subarray(0, 8000).includes(0) && Buffer.from(text, 'utf8').equals(bytes);
    return { ...file, encoding: isText ? 'text' : 'base64', content: isText ? text : file.content };
  },
});
