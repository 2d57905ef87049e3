import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { globalOptions } from '../../src/cli/program.js';
import { manifest } from '../../src/commands/manifest.js';
import { listOptions } from '../../src/cli/options.js';
import { run, tempDir } from '../helpers/cli.js';

const env = { FORGECTL_CONFIG_DIR: tempDir() };
const help = (argv: string[]) => run(argv, { env });

/** Internal documents users never see, and how they are cited. */
const INTERNAL = /§\s*\d|api-facts|cli-contract|spec document|\bthe contract\b|contract's|\bthe spec\b|spec's/i;

describe('help', () => {
  it('forgectl help PATH shows the help of that command', async () => {
    const viaHelp = await help(['help', 'tokens', 'rotate']);
    const viaFlag = await help(['tokens', 'rotate', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: forgectl tokens rotate /);
    expect((await help(['help', 'tokens'])).stdout).toMatch(/^Usage: forgectl tokens /);
    expect((await help(['help'])).stdout).toMatch(/^Usage: forgectl <command>/);
  });

  it('has topics for the environment, exit codes and formatting, listed in the main help', async () => {
    for (const [topic, text] of [['environment', 'FORGECTL_TOKEN'], ['exit-codes', '130'], ['formatting', '--fields']]) {
      const result = await help(['help', topic]);
      expect(result.code, topic).toBe(0);
      expect(result.stdout).toContain(text);
      expect(result.stdout).not.toMatch(INTERNAL);
    }
    expect((await help(['--help'])).stdout).toContain('Help topics (forgectl help TOPIC): environment, exit-codes, formatting');
  });

  it('help environment lists every variable forgectl reads that a user sets', async () => {
    // What the code reads: env.NAME and env['NAME'] in src/ and the bin (forgectl's own start-up).
    const files = [...readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts')).map((file) => `src/${file}`), 'bin/forgectl.cjs'];
    const read = new Set(files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)\b|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g)].map((match) => match[1] ?? match[2])));
    // The platform's own (where the home and config folders are), which no one sets for forgectl.
    const platform = ['HOME', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA'];
    expect(read).toContain('CI_NODE_INDEX');
    const topic = (await help(['help', 'environment'])).stdout;
    expect([...read].filter((name) => !platform.includes(name) && !new RegExp(`\\b${name}\\b`).test(topic))).toEqual([]);
  });

  it('a mistyped help topic or command gets the nearest one', async () => {
    for (const [argv, hint] of [
      [['help', 'tokens', 'rotat'], 'did you mean: forgectl help tokens rotate?'],
      [['help', 'enviroment'], 'did you mean: forgectl help environment?'],
      [['help', 'exitcodes'], 'did you mean: forgectl help exit-codes?'],
      [['help', 'projets', 'list'], 'did you mean: forgectl help projects list?'],
      [['help', 'tokens', 'xyzzy'], 'forgectl help tokens lists its commands'],
    ] as const) {
      const result = await help([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toBe(`error: no help for "${argv.slice(1).join(' ')}"\nhint: ${hint}\n`);
    }
  });

  it('an unknown command is exit 2, with --help too, and names what exists', async () => {
    for (const [argv, message] of [
      [['nosuchcmd', '--help'], 'unknown command "nosuchcmd"'],
      [['nosuchcmd'], 'unknown command "nosuchcmd"'],
      [['tokens', 'rotat', '--help'], 'did you mean: forgectl tokens rotate?'],
      [['help', 'nosuch'], 'no help for "nosuch"'],
    ] as const) {
      const result = await help([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
    }
  });

  it('a mistyped command is matched by edit distance over the whole tree, common groups first', async () => {
    for (const [argv, guess] of [
      [['project', 'list'], 'forgectl projects list'],
      [['projets'], 'forgectl projects'],
      [['projcts', 'get', 'acme/api'], 'forgectl projects get'],
      [['commit'], 'forgectl commits'],
      [['comits', 'list'], 'forgectl commits list'],
      [['pro'], 'forgectl projects'],
      [['usrs', 'get', 'alice'], 'forgectl users get'],
      [['repo', 'tre'], 'forgectl repo tree'],
      [['rotate'], 'forgectl tokens rotate'],
      // Inside a group the guess stays there: never another group's deletion.
      [['protected-branches', 'delete', 'main'], 'forgectl protected-branches unprotect'],
      [['protected-tags', 'remove'], 'forgectl protected-tags unprotect'],
      [['members', 'delet', 'bob'], 'forgectl members remove'],
      [['tokens', 'delete', '7'], 'forgectl tokens revoke'],
    ] as const) {
      const result = await help([...argv]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(`hint: did you mean: ${guess}?\n`);
    }
    expect((await help(['xyzzy'])).stderr).toContain('hint: forgectl --help lists the commands');
  });

  it('a mistyped value of an option that takes one of a list: exit 2, nothing sent, the value it was likely meant as', async () => {
    for (const [argv, guess] of [
      [['projects', 'list', '-o', 'jsno'], 'json'],
      [['users', 'list', '--output=yml'], 'yaml'],
      [['projects', 'list', '--visibility', 'privat'], 'private'],
    ] as const) {
      const result = await help([...argv, '--server', 'http://127.0.0.1:9']);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(new RegExp(`^error: .* must be one of .*\nhint: did you mean ${guess}\\?\n$`));
    }
    expect((await help(['projects', 'list', '-o', 'text'])).stderr).toBe('error: --output must be one of table, json, ndjson, yaml, csv; got "text"\n');
  });

  it('words after a command that takes none: exit 2 naming the option they were likely meant for', async () => {
    const stray = await help(['artifacts', 'delete', '1']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toBe('error: forgectl artifacts delete takes no arguments, got "1"\nhint: did you mean: forgectl artifacts delete --job 1?\n');
    expect((await help(['users', 'list', 'alice'])).stderr).toBe('error: forgectl users list takes no arguments, got "alice"\nhint: forgectl users list --help lists its options\n');
  });

  it('a list paged by keyset only (repo tree) does not offer --page (it refuses it, saying why)', async () => {
    const tree = await help(['repo', 'tree', '--help']);
    expect(tree.stdout).toContain('--per-page <n>');
    expect(tree.stdout).not.toContain('--page <n>');
  });

  it('a group lists its commands and points to the global options; the root groups its commands as the README does', async () => {
    const group = (await help(['tokens', '--help'])).stdout;
    expect(group).not.toContain('Global Options:');
    for (const path of [['tokens'], ['approvals', 'config']]) expect([...(await help([...path, '--help'])).stdout.matchAll(/^(\S.*):$/gm)].map((m) => m[1]), path.join(' ')).toEqual(['Options', 'Commands']);
    expect(group).toMatch(/\nCommands:\n {2}list {2,}List group, project or personal access tokens\n/);
    expect(group).toContain('\nGlobal options (-p, -o, --fields, -q, --dry-run, -y …) work with every command;\nforgectl --help lists them.\n');
    const root = (await help(['--help'])).stdout;
    const headings = [...root.matchAll(/^(\S.*):$/gm)].map((m) => m[1]);
    // The commands first, then the two dozen global options.
    expect(headings).toEqual(['Setup and raw requests', 'Tokens', 'Projects and groups', 'Review workflow', 'Audit events', 'Project settings', 'Instance administration', 'Repositories', 'CI runners and deploy tokens', 'Webhooks, job artifacts and snippets', 'Configuration as code', 'AI assistants', 'Options']);
    expect(root).toMatch(/^Usage: forgectl <command> \[options\]\n\nAdminister .*\n\nSetup and raw requests:\n {2}auth /);
    expect(root).toMatch(/\n\nOptions:\n {2}-V, --version .*\n[\s\S]* {2}-h, --help .*\n\nHelp topics \(forgectl help TOPIC\): /);
    expect(root).toMatch(/\nProjects and groups:\n {2}projects .*\n {2}groups .*\n {2}members .*\n {2}group-badges /);
    for (const line of root.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('marks the options a command requires', async () => {
    const create = (await help(['freeze-periods', 'create', '--help'])).stdout;
    expect(create).toMatch(/--freeze-start <cron> +required: when the freeze starts/);
    expect(create).toMatch(/--cron-timezone <zone> +IANA time zone/);
    expect((await help(['hooks', 'create', '--help'])).stdout).toMatch(/--url <url> +required: /);
  });

  it('help exit-codes counts drift found by plan under 9', async () => {
    expect((await help(['help', 'exit-codes'])).stdout).toMatch(/^ {2}9 {4}finished with attention needed: plan found drift/m);
  });

  it('lists the global options every command inherits (not the program\'s --version), and states each default once', async () => {
    const twice: string[] = [];
    for (const entry of manifest) {
      const { stdout, code } = await help([...entry.path.split(' '), '--help']);
      expect(code, entry.path).toBe(0);
      const globals = stdout.slice(stdout.indexOf('Global Options:'));
      expect(stdout, entry.path).toContain('Global Options:');
      for (const flag of ['--profile <name>', '--server <url>', '--output <format>', '--fields', '--quiet', '--timeout <seconds>']) expect(globals, entry.path).toContain(flag);
      expect(globals, entry.path).not.toContain('--version');
      expect(stdout, entry.path).not.toMatch(INTERNAL);
      // One line per option (commander indents continuations): "(default …)" said by us and again by commander.
      for (const line of stdout.replace(/\n {20,}/g, ' ').split('\n')) if ((line.match(/\(default/g)?.length ?? 0) > 1) twice.push(`${entry.path}: ${line.trim()}`);
      const def = (await entry.load()).default;
      for (const option of [...(def.options ?? []), ...listOptions(def.list)]) {
        if (option.default !== undefined && /\(default|default:|by default|\bdefaults? to\b/i.test(option.description)) twice.push(`${entry.path}: ${option.flags}: ${option.description}`);
      }
    }
    expect([...new Set(twice)]).toEqual([]);
    for (const option of globalOptions) expect(option.default).toBeUndefined();
  });

  it('no user-facing text cites internal documents', () => {
    const docs = readdirSync(new URL('../../docs/', import.meta.url), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
    for (const file of ['README.md', 'CHANGELOG.md', ...docs]) {
      const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      const line = text.split('\n').find((l) => INTERNAL.test(l) && !/the contract test/.test(l));
      expect(line, file).toBeUndefined();
    }
  });
});
