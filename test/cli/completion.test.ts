import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { completionScript, completionTree, SHELLS } from '../../src/cli/completion.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { BIN, BUILT, run, tempDir } from '../helpers/cli.js';
import { needs } from '../helpers/system.js';

const completions = fileURLToPath(new URL('../../completions/', import.meta.url));

describe('shell completion', () => {
  it('keeps completions/ in step with the commands (run `npm run completions` when this fails)', async () => {
    const tree = await completionTree(commands);
    for (const shell of SHELLS) {
      const committed = readFileSync(join(completions, `forgectl.${shell}`), 'utf8');
      expect(committed, `completions/forgectl.${shell} is stale: run npm run completions`).toBe(completionScript(shell, tree));
    }
  });

  it('prints the script and names every command and its options', async () => {
    const result = await run(['completion', 'bash'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result.code).toBe(0);
    for (const entry of manifest) expect(result.stdout).toContain(`'${entry.path}')`);
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

/**
 * Each shell runs its script for real. A `forgectl` on PATH (the built CLI) answers profile names from a config
 * with two profiles. A shell that is not installed is skipped, saying so (.ci/run installs them).
 */
describe.skipIf(!BUILT)('the completion scripts, run by their shells', () => {
  const home = tempDir('forgectl-completion-');
  const bin = join(home, 'bin');
  const files = join(home, 'files');
  let env: NodeJS.ProcessEnv = {};
  beforeAll(() => {
    mkdirSync(bin);
    writeFileSync(join(bin, 'forgectl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'forgectl'), 0o755);
    mkdirSync(join(home, 'config'), { mode: 0o700 });
    writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ current: 'alpha', profiles: { alpha: { url: 'https://a.example.com' }, prod: { url: 'https://p.example.com' } } }), { mode: 0o600 });
    mkdirSync(files);
    writeFileSync(join(files, 'body.json'), '{}');
    env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, FORGECTL_CONFIG_DIR: join(home, 'config'), TERM: 'dumb' };
  });

  it('bash: commands, options, values of -o, -p and enumerated options, and file names for file options', (context) => {
    needs(context, 'bash');
    const complete = (words: string[]) =>
      execFileSync('bash', ['-c', `source "${join(completions, 'forgectl.bash')}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _forgectl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8', env, cwd: files }).trim();
    expect(complete(['forgectl', 'tok'])).toBe('tokens');
    expect(complete(['forgectl', 'tokens', 'ro']).split(' ')).toEqual(['rotate']);
    expect(complete(['forgectl', 'tokens', 'rotate', '--save'])).toBe('--save-to-profile --save-to');
    expect(complete(['forgectl', '-o', 'json', 'mirror', 'pull', 's']).split(' ').sort()).toEqual(['set', 'sync']);
    expect(complete(['forgectl', '-o', ''])).toBe('table json ndjson yaml csv');
    expect(complete(['forgectl', 'users', 'list', '--output', 'nd'])).toBe('ndjson');
    expect(complete(['forgectl', '-p', ''])).toBe('alpha prod');
    expect(complete(['forgectl', 'tokens', 'create', '--access-level', 'ma'])).toBe('maintainer');
    expect(complete(['forgectl', 'api', '/user', '--input', 'bo'])).toBe('body.json');
    expect(complete(['forgectl', 'secure-files', 'download', '1', '--output-file', 'bo'])).toBe('body.json');
    expect(complete(['forgectl', 'api', '/user', '--method', ''])).toBe('');
  });

  it('zsh: installed into $fpath as the README says, the first TAB completes, with descriptions and values', (context) => {
    needs(context, 'zsh');
    const fpath = join(home, 'zfunctions');
    mkdirSync(fpath, { recursive: true });
    copyFileSync(join(completions, 'forgectl.zsh'), join(fpath, '_forgectl'));
    // An interactive zsh on a pseudo-terminal (zpty), with compinit as a user's .zshrc runs it; keys typed, screen read.
    const driver = `
      zmodload zsh/zpty
      zpty -b z 'zsh -f -i'
      zpty -w z 'PS1="> "; fpath=(${fpath} $fpath); autoload -U compinit; compinit -u -D; zstyle ":completion:*" list-separator "--"'
      sleep 1; while zpty -r -t z line; do :; done
      type() { zpty -w -n z "$1"; sleep 1.5; local out="" line; while zpty -r -t z line; do out+="$line"; done; print -r -- "=== $2"; print -r -- "$out"; zpty -w -n z $'\\C-u'; sleep 0.3; while zpty -r -t z line; do :; done }
      type $'forgectl tok\\t' first
      type $'forgectl tokens \\t' menu
      type $'forgectl -o \\t' formats
      type $'forgectl -p \\t' profiles
      type $'forgectl tokens create --access-level \\t' levels
      zpty -d z`;
    const out = execFileSync('zsh', ['-f', '-c', driver], { encoding: 'utf8', env, cwd: files, timeout: 40_000 }).replace(/\x1b\[[0-9;]*[A-Za-z]|[\x07\x08\r]/g, ''); // eslint-disable-line no-control-regex
    const section = (name: string) => out.split(`=== ${name}\n`)[1]?.split('\n=== ')[0] ?? '';
    expect(section('first')).toContain('forgectl tokens');
    expect(section('menu')).toMatch(/rotate\s+-- Rotate a token safely/);
    expect(section('formats')).toMatch(/csv\s+json\s+ndjson\s+table\s+yaml/);
    expect(section('profiles')).toMatch(/alpha\s+prod/);
    expect(section('levels')).toMatch(/developer[\s\S]*maintainer/);
  }, 60_000);

  it('fish: commands and options with descriptions, values of -o, -p and enumerated options, file names', (context) => {
    needs(context, 'fish');
    const fishDir = join(home, 'fish');
    mkdirSync(fishDir, { recursive: true });
    copyFileSync(join(completions, 'forgectl.fish'), join(fishDir, 'forgectl.fish'));
    const complete = (line: string) =>
      execFileSync('fish', ['-N', '-c', `set fish_complete_path ${fishDir} $fish_complete_path; complete -C ${JSON.stringify(line)}`], { encoding: 'utf8', env, cwd: files }).trim().split('\n');
    expect(complete('forgectl tok')).toEqual(['tokens\tGroup, project and personal access tokens; cron-safe rotation']);
    expect(complete('forgectl tokens ro')[0]).toMatch(/^rotate\tRotate a token safely/);
    expect(complete('forgectl tokens rotate --save').map((l) => l.split('\t')[0])).toEqual(['--save-to', '--save-to-profile']);
    expect(complete('forgectl -o ').map((l) => l.split('\t')[0])).toEqual(['csv', 'json', 'ndjson', 'table', 'yaml']);
    expect(complete('forgectl -p ').map((l) => l.split('\t')[0])).toEqual(['alpha', 'prod']);
    expect(complete('forgectl tokens create --access-level ma').map((l) => l.split('\t')[0])).toEqual(['maintainer']);
    expect(complete('forgectl api /user --input bo').map((l) => l.split('\t')[0])).toEqual(['body.json']);
  });
});
