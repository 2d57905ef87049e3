import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OptionDef } from '../../src/cli/command.js';
import { COMPLETE_COMMAND } from '../../src/cli/command.js';
import { complete, completionScript, SHELLS } from '../../src/cli/completion.js';
import { fleetOptionsOf } from '../../src/cli/fleet-options.js';
import { listOptions } from '../../src/cli/options.js';
import { globalOptions } from '../../src/cli/program.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { choicesOf, takesList } from '../../src/parse.js';
import { BIN, BUILT, run, tempDir } from '../helpers/cli.js';
import { needs } from '../helpers/system.js';

const completions = fileURLToPath(new URL('../../completions/', import.meta.url));

/** Every option of every command (and the global ones, at the root), as the command defines it. */
async function everyOption(): Promise<Array<{ path: string; def: OptionDef }>> {
  const found = globalOptions.map((def) => ({ path: '', def }));
  for (const entry of manifest) {
    const def = (await entry.load()).default;
    for (const option of [...(def.options ?? []), ...listOptions(def.list), ...fleetOptionsOf(def)]) found.push({ path: entry.path, def: option });
  }
  return found;
}

/** What `forgectl __complete WORDS…` prints, a line each (the last one says what the shell does besides). */
async function completeLines(words: string[]): Promise<string[]> {
  const result = await run([COMPLETE_COMMAND, ...words], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
  expect(result.code, words.join(' ')).toBe(0);
  return result.stdout.trimEnd().split('\n');
}

/** The candidates alone, without descriptions or the shell's instruction. */
const candidates = async (words: string[]): Promise<string[]> => (await completeLines(words)).filter((line) => !line.startsWith(':')).map((line) => line.split('\t')[0]);

const longName = (def: OptionDef) => def.flags.split(/[ ,|]+/).find((flag) => flag.startsWith('--'))!;

/** The options that take one of a list: each with its command, long name, values, and whether it takes several. */
async function optionsWithChoices(): Promise<Array<{ path: string; name: string; values: readonly string[]; list: boolean }>> {
  return (await everyOption())
    .filter(({ def }) => def.choices ?? choicesOf(def.parse))
    .map(({ path, def }) => ({ path, name: longName(def), values: def.choices ?? choicesOf(def.parse)!, list: takesList(def.parse) }));
}

describe('shell completion', () => {
  it('knows the values of every option that takes one of a list: its parser names them', async () => {
    // An option whose parser refuses a value with "must be one of A, B; got …" takes one of a list; its parser must
    // name them (a wrapper that hides them would leave completion without them).
    const unnamed: string[] = [];
    for (const { path, def } of await everyOption()) {
      if (!def.parse || !/[<[]/.test(def.flags) || def.choices || choicesOf(def.parse)) continue;
      let refusal = '';
      try {
        def.parse('not-one-of-them', undefined);
      } catch (error) {
        refusal = (error as Error).message;
      }
      if (/must be one of [^(;]*; got/.test(refusal)) unnamed.push(`${path} ${def.flags}: ${refusal}`);
    }
    expect(unnamed).toEqual([]);
  });

  it('offers the values of every such option after it: forgectl __complete answers what the scripts ask', async () => {
    const options = await optionsWithChoices();
    expect(options.map((o) => `${o.path} ${o.name}`)).toEqual(expect.arrayContaining(['variables set --type', 'protected-branches protect --push-access-level', 'protected-branches protect --merge-access-level', 'protected-branches protect --unprotect-access-level', 'mcp serve --allow-write', 'mcp serve --toolsets', 'hooks create --events']));
    for (const { path, name, values, list } of options) {
      const words = [...(path ? path.split(' ') : []), name];
      expect(await candidates([...words, '']), `${path} ${name}`).toEqual(values);
      // The value given as --name=VALUE completes too.
      expect(await candidates([...words.slice(0, -1), `${name}=`]), `${path} ${name}=`).toEqual(values.map((value) => `${name}=${value}`));
      // Several values, comma-separated: the one after the last comma completes, those before it are kept.
      if (list) expect(await candidates([...words, `${values[0]},`]), `${path} ${name} list`).toEqual(values.map((value) => `${values[0]},${value}`));
    }
  });

  it('offers every command, group and help topic, each with its summary, and the options of a command with theirs', async () => {
    for (const entry of manifest) {
      const words = entry.path.split(' ');
      for (let i = 0; i < words.length; i++) {
        const offered = await completeLines([...words.slice(0, i), words[i].slice(0, 2)]);
        const path = words.slice(0, i + 1).join(' ');
        const summary = manifest.find((other) => other.path === path)?.summary ?? commands.groups[path];
        expect(offered, entry.path).toContain(`${words[i]}\t${summary}`);
      }
    }
    expect(await completeLines(['he'])).toContain('help\thelp for a command, or a topic');
    expect(await completeLines(['help', 'exit'])).toEqual(['exit-codes\tWhat each exit code means', ':']);
    expect(await completeLines(['help', 'tokens', 'rot'])).toEqual(['rotate\tRotate a token safely, for cron: lock, recovery file, save, check', ':']);
    const rotate = await completeLines(['-p', 'prod', 'tokens', 'rotate', '5', '--']);
    expect(rotate).toContain('--save-to-profile\treplace the token of the profile in use (or of NAME) with the new one; the token is then not printed (rotating self does it without the flag)');
    expect(rotate).toContain('--output\toutput format: table, json, ndjson, yaml, csv');
    expect(rotate).toContain('--help\tdisplay help for command');
    // Fleet and paging options are the command's too.
    expect(await completeLines(['variables', 'set', '--projects-f'])).toEqual(['--projects-file\tthe projects listed in this file (one ID or path a line; - for stdin)', ':']);
    expect(await candidates(['users', 'list', '--li'])).toEqual(['--limit']);
  });

  it('says what the shell does for a value that is a file, a profile or free text', async () => {
    const configDir = tempDir();
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current: 'alpha', profiles: { alpha: { url: 'https://a.example.com' }, prod: { url: 'https://p.example.com' } } }), { mode: 0o600 });
    expect((await run([COMPLETE_COMMAND, '-p', ''], { env: { FORGECTL_CONFIG_DIR: configDir } })).stdout).toBe('alpha\nprod\n:\n');
    expect((await run([COMPLETE_COMMAND, '--profile', 'p'], { env: { FORGECTL_CONFIG_DIR: configDir } })).stdout).toBe('prod\n:\n');
    // No config (or one that cannot be read): no profiles, and no error on the terminal while typing.
    expect(await run([COMPLETE_COMMAND, '-p', ''], { env: { FORGECTL_CONFIG_DIR: join(configDir, 'missing') } })).toMatchObject({ code: 0, stdout: ':\n', stderr: '' });
    expect(await completeLines(['api', '/user', '--input', 'b'])).toEqual([':files']);
    expect(await completeLines(['plan', 'merge', ''])).toEqual([':files']);
    expect(await completeLines(['api', '/user', '--header', ''])).toEqual([':none']);
    expect(await completeLines(['api', '/user', '--method', ''])).toEqual(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', ':']);
    // The value of an option is not taken for a command: `--project tokens` does not enter tokens.
    expect(await candidates(['-o', 'json', 'users', 'li'])).toEqual(['list']);
    expect(await candidates(['--fields', 'tokens', 'us'])).toEqual(['users']);
  });

  it('offers the declared fields of the command\'s records for --fields, a list after a comma too; before a command, none', async () => {
    expect(await candidates(['projects', 'list', '--fields', 'path_with'])).toEqual(['path_with_namespace']);
    expect(await candidates(['projects', 'list', '--fields', 'id,default_'])).toEqual(['id,default_branch']);
    expect(await candidates(['users', 'list', '--fields=user'])).toEqual(['--fields=username']);
    expect(await candidates(['-o', 'csv', 'protected-branches', 'list', '--fields', 'allow_force'])).toEqual(['allow_force_push']);
    expect(await completeLines(['--fields', ''])).toEqual([':none']);
  });

  it('offers the values of an argument that declares them: profile names, profile keys, shells', async () => {
    const configDir = tempDir();
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ current: 'alpha', profiles: { alpha: { url: 'https://a.example.com' }, prod: { url: 'https://p.example.com' } } }), { mode: 0o600 });
    const offered = async (words: string[]) => (await run([COMPLETE_COMMAND, ...words], { env: { FORGECTL_CONFIG_DIR: configDir } })).stdout;
    for (const verb of ['use', 'show', 'remove']) expect(await offered(['profile', verb, '']), verb).toBe('alpha\nprod\n:\n');
    expect(await offered(['-p', 'alpha', 'profile', 'use', 'p'])).toBe('prod\n:\n');
    expect(await offered(['completion', ''])).toBe('bash\nzsh\nfish\n:\n');
    expect(await offered(['profile', 'set', 'time'])).toBe('timeout\n:\n');
    expect(await offered(['profile', 'unset', 'default_'])).toBe('default_group\ndefault_project\n:\n');
    // The second argument of profile set is the value of the key before it: one of a list, a file, or free text.
    expect(await offered(['profile', 'set', 'output', ''])).toBe('table\njson\nndjson\nyaml\ncsv\n:\n');
    expect(await offered(['profile', 'set', 'token_type', 'j'])).toBe('job\n:\n');
    expect(await offered(['profile', 'set', 'allow_http', ''])).toBe('true\nfalse\n:\n');
    expect(await offered(['profile', 'set', 'ca_file', ''])).toBe(':files\n');
    expect(await offered(['profile', 'set', 'timeout', ''])).toBe(':none\n');
    // Options between the arguments are not counted as arguments, nor their values.
    expect(await offered(['profile', 'set', '-o', 'json', 'ur'])).toBe('url\n:\n');
    // Every argument that declares its values offers them, all of them for an empty word.
    const declared: string[] = [];
    for (const entry of manifest) {
      const args = (await entry.load()).default.args ?? [];
      for (const [index, arg] of args.entries()) {
        if (typeof arg === 'string' || typeof arg.values !== 'object') continue;
        declared.push(entry.path);
        const words = [...entry.path.split(' '), ...args.slice(0, index).map(() => 'x'), ''];
        expect(await complete(commands, words, () => []), entry.path).toEqual({ candidates: arg.values.values.map((value) => ({ value })) });
      }
    }
    expect(declared).toEqual(expect.arrayContaining(['completion', 'profile set', 'profile unset']));
  });

  it('loads the definition of the one command the words name, and no other', async () => {
    const loaded: string[] = [];
    const counting = { ...commands, manifest: manifest.map((entry) => ({ ...entry, load: () => (loaded.push(entry.path), entry.load()) })) };
    await complete(counting, ['-p', 'x', 'mirror', 'pull', 'set', '--'], () => []);
    expect(loaded).toEqual(['mirror pull set']);
    loaded.length = 0;
    await complete(counting, ['mirror', 'pu'], () => []);
    expect(loaded).toEqual([]);
  });

  it('keeps completions/ in step with the scripts forgectl prints (run `npm run completions` when this fails), and they are small', () => {
    for (const shell of SHELLS) {
      const committed = readFileSync(join(completions, `forgectl.${shell}`), 'utf8');
      expect(committed, `completions/forgectl.${shell} is stale: run npm run completions`).toBe(completionScript(shell));
      expect(committed).toContain(`forgectl ${COMPLETE_COMMAND}`);
      expect(committed.length).toBeLessThan(2_000);
    }
  });

  it('prints the script; an unknown shell is a usage error', async () => {
    const result = await run(['completion', 'bash'], { env: { FORGECTL_CONFIG_DIR: tempDir() } });
    expect(result).toMatchObject({ code: 0, stdout: completionScript('bash') });
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
    expect(complete(['forgectl', 'api', '/user', '--header', ''])).toBe('');
    expect(complete(['forgectl', 'api', '/user', '--method', 'P'])).toBe('POST PUT PATCH');
    expect(complete(['forgectl', 'profile', 'use', ''])).toBe('alpha prod');
    expect(complete(['forgectl', 'completion', ''])).toBe('bash zsh fish');
  });

  it('bash: --name=value completes the value, though bash splits the word at "=" (it gives back only what follows "=")', (context) => {
    needs(context, 'bash');
    // The words as bash itself splits `forgectl users list --output=nd` (COMP_WORDBREAKS holds '=').
    const complete = (words: string[]) =>
      execFileSync('bash', ['-c', `source "${join(completions, 'forgectl.bash')}"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _forgectl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8', env, cwd: files }).trim();
    expect(complete(['forgectl', 'users', 'list', '--output', '=', 'nd'])).toBe('ndjson');
    expect(complete(['forgectl', 'users', 'list', '--output', '='])).toBe('table json ndjson yaml csv');
    expect(complete(['forgectl', '--profile', '=', ''])).toBe('alpha prod');
    expect(complete(['forgectl', '--profile', '=', 'a', 'users', 'l'])).toBe('list');
    expect(complete(['forgectl', 'api', '/user', '--input', '=', 'bo'])).toBe('body.json');
  });

  it('bash, fish: every option that takes one of a list completes its values; a list after a comma too', async (context) => {
    needs(context, 'bash', 'fish');
    const options = await optionsWithChoices();
    const fishDir = join(home, 'fish-all');
    mkdirSync(fishDir, { recursive: true });
    copyFileSync(join(completions, 'forgectl.fish'), join(fishDir, 'forgectl.fish'));
    // One shell each completes them all, a line of === between the answers.
    const words = (o: { path: string; name: string }) => ['forgectl', ...(o.path ? o.path.split(' ') : []), o.name];
    const bash = execFileSync('bash', ['-c', [`source "${join(completions, 'forgectl.bash')}"`, ...options.map((o) => `COMP_WORDS=(${[...words(o), ''].map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words(o).length}; _forgectl; echo "\${COMPREPLY[@]}"; echo ===`)].join('\n')], { encoding: 'utf8', env, cwd: files });
    const fish = execFileSync('fish', ['-N', '-c', [`set fish_complete_path ${fishDir} $fish_complete_path`, ...options.map((o) => `complete -C ${JSON.stringify(`${words(o).join(' ')} `)}; echo ===`)].join('\n')], { encoding: 'utf8', env, cwd: files });
    const answers = (out: string) => out.split('===\n').slice(0, -1).map((answer) => answer.trim().split(/\s*\n\s*|(?<=^[^\t]*) /).filter(Boolean).map((line) => line.split('\t')[0]).sort());
    const [fromBash, fromFish] = [answers(bash), answers(fish)];
    options.forEach((o, i) => {
      expect(fromBash[i], `bash: ${o.path} ${o.name}`).toEqual([...o.values].sort());
      expect(fromFish[i], `fish: ${o.path} ${o.name}`).toEqual([...o.values].sort());
    });
    // Several values, comma-separated: the one after the last comma completes.
    const after = execFileSync('bash', ['-c', `source "${join(completions, 'forgectl.bash')}"; COMP_WORDS=(forgectl mcp serve --allow-write projects,re); COMP_CWORD=4; _forgectl; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8', env, cwd: files });
    expect(after.trim().split(' ').sort()).toEqual(['projects,refs', 'projects,repository', 'projects,review']);
    const fishAfter = execFileSync('fish', ['-N', '-c', `set fish_complete_path ${fishDir} $fish_complete_path; complete -C 'forgectl hooks create --events push,merge_'`], { encoding: 'utf8', env, cwd: files });
    expect(fishAfter.trim().split('\n').map((line) => line.split('\t')[0])).toEqual(['push,merge_requests']);
  }, 180_000);

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
      type $'forgectl tokens rotate --save-to\\t' options
      type $'forgectl -o \\t' formats
      type $'forgectl -p \\t' profiles
      type $'forgectl tokens create --access-level \\t' levels
      type $'forgectl variables set --type \\t' types
      type $'forgectl protected-branches protect --push-access-level \\t' push
      type $'forgectl mcp serve --allow-write projects,\\t' toolsets
      type $'forgectl profile use \\t' profile-names
      type $'forgectl completion \\t' shells
      zpty -d z`;
    const out = execFileSync('zsh', ['-f', '-c', driver], { encoding: 'utf8', env, cwd: files, timeout: 40_000 }).replace(/\x1b\[[0-9;]*[A-Za-z]|[\x07\x08\r]/g, ''); // eslint-disable-line no-control-regex
    const section = (name: string) => out.split(`=== ${name}\n`)[1]?.split('\n=== ')[0] ?? '';
    expect(section('first')).toContain('forgectl tokens');
    expect(section('menu')).toMatch(/rotate\s+-- Rotate a token safely/);
    expect(section('options')).toMatch(/--save-to-profile\s+-- replace the token of the profile in use/);
    expect(section('formats')).toMatch(/csv\s+json\s+ndjson\s+table\s+yaml/);
    expect(section('profiles')).toMatch(/alpha\s+prod/);
    expect(section('levels')).toMatch(/developer[\s\S]*maintainer/);
    expect(section('types')).toMatch(/env_var\s+file/);
    expect(section('push')).toMatch(/admin\s+developer\s+maintainer\s+no-access/);
    expect(section('toolsets')).toMatch(/desired-state/);
    expect(section('toolsets')).toMatch(/repository/);
    expect(section('profile-names')).toMatch(/alpha\s+prod/);
    expect(section('shells')).toMatch(/bash\s+fish\s+zsh/);
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
    expect(complete('forgectl tokens rotate --save-to-p')).toEqual(['--save-to-profile\treplace the token of the profile in use (or of NAME) with the new one; the token is then not printed (rotating self does it without the flag)']);
    expect(complete('forgectl -o ').map((l) => l.split('\t')[0])).toEqual(['csv', 'json', 'ndjson', 'table', 'yaml']);
    expect(complete('forgectl -p ').map((l) => l.split('\t')[0])).toEqual(['alpha', 'prod']);
    expect(complete('forgectl tokens create --access-level ma').map((l) => l.split('\t')[0])).toEqual(['maintainer']);
    expect(complete('forgectl api /user --input bo').map((l) => l.split('\t')[0])).toEqual(['body.json']);
    expect(complete('forgectl profile remove ')).toEqual(['alpha', 'prod']);
    expect(complete('forgectl completion ')).toEqual(['bash', 'fish', 'zsh']);
  });
});
