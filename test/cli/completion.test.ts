import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionScript, completionTree, SHELLS } from '../../src/cli/completion.js';
import { manifest } from '../../src/cli/manifest.js';
import { run, tempDir } from '../helpers/cli.js';

describe('shell completion', () => {
  it('keeps completions/ in step with the commands (run `npm run completions` when this fails)', async () => {
    const tree = await completionTree();
    for (const shell of SHELLS) {
      const committed = readFileSync(new URL(`../../completions/forgectl.${shell}`, import.meta.url), 'utf8');
      expect(committed, `completions/forgectl.${shell} is stale: run npm run completions`).toBe(completionScript(shell, tree));
    }
  });

  it('prints the script and names every command and its options', async () => {
    const result = await run(['completion', 'bash'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result.code).toBe(0);
    for (const entry of manifest) expect(result.stdout).toContain(`"${entry.path}")`);
    expect(result.stdout).toContain('--token-stdin');
    expect((await run(['completion', 'powershell'], { env: { FORGECTL_CONFIG_DIR: tempDir() } })).code).toBe(2);
  });

  it('has an example in the help of every command', async () => {
    for (const entry of manifest) {
      const def = (await entry.load()).default;
      expect(def.examples.length, entry.path).toBeGreaterThan(0);
    }
  });
});

describe('the bash completion script', () => {
  it('completes command groups, commands and options in bash', async () => {
    const { execFileSync } = await import('node:child_process');
    const script = new URL('../../completions/forgectl.bash', import.meta.url).pathname;
    const complete = (words: string[]) =>
      execFileSync('bash', ['-c', `source "${script}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _forgectl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' }).trim();
    expect(complete(['forgectl', 'tok'])).toBe('tokens');
    expect(complete(['forgectl', 'tokens', 'ro']).split(' ')).toEqual(['rotate']);
    expect(complete(['forgectl', 'tokens', 'rotate', '--save'])).toBe('--save-to-profile');
    expect(complete(['forgectl', '-o', 'json', 'mirror', 'pull', 's']).split(' ').sort()).toEqual(['set', 'sync']);
  });
});
