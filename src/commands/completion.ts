import { defineCommand } from '../cli/command.js';
import { completionScript, completionTree, SHELLS, type Shell } from '../cli/completion.js';
import { parseChoice } from '../parse.js';
import { TextResult } from '../output/result.js';

export default defineCommand<{ shell: string }>({
  description: 'The same scripts ship in the package under completions/.',
  credentials: false,
  examples: [
    'forgectl completion bash > /etc/bash_completion.d/forgectl',
    'forgectl completion zsh > "${fpath[1]}/_forgectl"',
    'mkdir -p ~/.config/fish/completions && forgectl completion fish > ~/.config/fish/completions/forgectl.fish',
  ],
  args: ['<shell>'],
  async run(opts, ctx) {
    const shell = parseChoice('shell', SHELLS)(opts.shell) as Shell;
    return new TextResult(completionScript(shell, await completionTree(ctx.commands)));
  },
});
