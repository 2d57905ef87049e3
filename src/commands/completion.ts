import { defineCommand } from '../cli/command.js';
import { completionScript, SHELLS, type Shell } from '../cli/completion.js';
import { parseChoice } from '../parse.js';
import { TextResult } from '../output/result.js';

export default defineCommand<{ shell: string }>({
  description: 'The script is small and the same for every version: at each TAB it asks forgectl for the commands, options and values that fit, so it never needs writing again after an upgrade. The same scripts ship in the package under completions/.\n\nbash reads ~/.local/share/bash-completion/completions when the bash-completion package is installed; without it, add `source <(forgectl completion bash)` to ~/.bashrc. zsh reads ~/.zfunc when ~/.zshrc has `fpath=(~/.zfunc $fpath)` before `compinit`. Open a new shell afterwards.',
  credentials: false,
  examples: [
    'mkdir -p ~/.local/share/bash-completion/completions && forgectl completion bash > ~/.local/share/bash-completion/completions/forgectl',
    'mkdir -p ~/.zfunc && forgectl completion zsh > ~/.zfunc/_forgectl',
    'mkdir -p ~/.config/fish/completions && forgectl completion fish > ~/.config/fish/completions/forgectl.fish',
  ],
  args: [{ spec: '<shell>', description: SHELLS.join(', '), values: { values: SHELLS } }],
  async run(opts) {
    const shell = parseChoice('shell', SHELLS)(opts.shell) as Shell;
    return new TextResult(completionScript(shell));
  },
});
