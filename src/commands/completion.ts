import { defineCommand, type Commands } from '../cli/command.js';
import { completionScript, completionTree, SHELLS, type Shell } from '../cli/completion.js';
import { parseChoice } from '../parse.js';
import { TextResult } from '../output/result.js';

/** The completion command, over the commands it completes (handed over by the manifest, which lists it). */
export const completionCommand = (commands: Commands) => defineCommand<{ shell: string }>({
  description: 'The same scripts ship in the package under completions/.',
  examples: [
    'forgectl completion bash > /etc/bash_completion.d/forgectl',
    'forgectl completion zsh > "${fpath[1]}/_forgectl"',
    'forgectl completion fish > ~/.config/fish/completions/forgectl.fish',
  ],
  args: ['<shell>'],
  async run(opts) {
    const shell = parseChoice('shell', SHELLS)(opts.shell) as Shell;
    return new TextResult(completionScript(shell, await completionTree(commands)));
  },
});
