import { defineCommand } from '../cli/command.js';
import { completionScript, SHELLS, type Shell } from '../cli/completion.js';
import { parseChoice } from '../parse.js';
import { TextResult } from '../output/result.js';

export default defineCommand<{ shell: string }>({
  description: 'The script is small and the same for every version: at each TAB it asks forgectl for the commands, options and values that fit, so it never needs writing again after an upgrade. The same scripts ship in the package under completions/.',
  credentials: false,
  examples: [
    'forgectl completion bash > /etc/bash_completion.d/forgectl',
    'forgectl completion zsh > "${fpath[1]}/_forgectl"',
    'mkdir -p ~/.config/fish/completions && forgectl completion fish > ~/.config/fish/completions/forgectl.fish',
  ],
  args: [{ spec: '<shell>', description: SHELLS.join(', '), values: { values: SHELLS } }],
  async run(opts) {
    const shell = parseChoice('shell', SHELLS)(opts.shell) as Shell;
    return new TextResult(completionScript(shell));
  },
});
