/**
 * The manual is written from the command tree (scripts/manual/): the reference pages under docs/commands/ are checked
 * in and must be what the tree gives now, one for every command, each carrying what its `--help` shows.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { commands, manifest } from '../../src/commands/manifest.js';
import { commandFile, INDEX_FILE, referencePages, topicFile } from '../../scripts/manual/markdown.js';
import { buildManual, type Manual } from '../../scripts/manual/model.js';
import { manPages } from '../../scripts/manual/roff.js';
import { BUILT, run, tempDir } from '../helpers/cli.js';
import { needs } from '../helpers/system.js';

const reference = fileURLToPath(new URL('../../docs/commands/', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));
const env = { FORGECTL_CONFIG_DIR: tempDir() };

/** Every file below a folder, by its path relative to it. */
const filesBelow = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();

/** The option terms a help text lists ('-o, --output <format>'), under any heading but the arguments'. */
function helpOptionTerms(help: string): string[] {
  const terms: string[] = [];
  let heading = '';
  for (const line of help.split('\n')) {
    if (/^\S.*:$/.test(line)) heading = line;
    else if (/Options|Fleet/.test(heading) && /^ {2}-/.test(line)) terms.push(line.trim().split(/\s{2,}/)[0]);
  }
  return terms;
}

let manual: Manual;
beforeAll(async () => {
  manual = await buildManual(commands, __FORGECTL_VERSION__);
});

describe('the reference pages (docs/commands/)', () => {
  it('are what the command tree gives (run `npm run docs` when this fails)', () => {
    const pages = referencePages(manual);
    expect(filesBelow(reference), 'the pages under docs/commands/: run npm run docs').toEqual([...pages.keys()].sort());
    for (const [file, text] of pages) expect(readFileSync(join(reference, file), 'utf8'), `docs/commands/${file} is stale: run npm run docs`).toBe(text);
  });

  it('are one for every command and help topic, and the index', () => {
    const expected = [INDEX_FILE, ...manifest.map((entry) => commandFile(entry.path)), ...Object.keys(HELP_TOPICS).map(topicFile)];
    expect(filesBelow(reference)).toEqual(expected.sort());
    const index = readFileSync(join(reference, INDEX_FILE), 'utf8');
    for (const entry of manifest) expect(index, entry.path).toContain(`](${commandFile(entry.path)})`);
  });

  it('each carries every option and example its --help shows', async () => {
    for (const entry of manifest) {
      const help = await run([...entry.path.split(' '), '--help'], { env });
      expect(help.code, entry.path).toBe(0);
      const page = readFileSync(join(reference, commandFile(entry.path)), 'utf8');
      const terms = helpOptionTerms(help.stdout);
      expect(terms, entry.path).toContain('--timeout <seconds>');
      for (const term of terms) expect(page, `${entry.path}: ${term}`).toContain(`\`${term}\``);
      const examples = help.stdout.split('\nExamples:\n')[1]?.split('\n').filter((line) => line.startsWith('  $ ')) ?? [];
      expect(examples.length, entry.path).toBeGreaterThan(0);
      for (const example of examples) expect(page, entry.path).toContain(`\n${example.slice(4)}\n`);
      expect(page).toContain(`\n${help.stdout.split('\n')[0].replace(/^Usage: /, '')}\n`);
    }
  });

  it('say what each help topic says', async () => {
    for (const topic of Object.keys(HELP_TOPICS)) {
      const page = readFileSync(join(reference, topicFile(topic)), 'utf8');
      const help = (await run(['help', topic], { env })).stdout;
      // Each term of the topic's lists (an exit code, a variable, a format) is on the page.
      const terms = help.split('\n').flatMap((line) => /^ {2}(\S+(?: \S+)*) {2,}\S/.exec(line)?.[1] ?? []);
      expect(terms.length, topic).toBeGreaterThan(2);
      for (const term of terms) expect(page, `${topic}: ${term}`).toContain(`\`${term}\``);
    }
  });

  it('list the exit codes particular to a command, and 9 for a run over many projects', () => {
    const page = (path: string) => readFileSync(join(reference, commandFile(path)), 'utf8');
    expect(page('tokens rotate')).toMatch(/- `10`: rotated, but not saved everywhere/);
    expect(page('plan')).toMatch(/- `9`: drift/);
    expect(page('variables set')).toMatch(/- `9`: some projects of a run over many projects failed/);
    expect(page('users list')).not.toMatch(/- `9`/);
  });
});

describe('the man pages', () => {
  it('are each named in package.json, which npm install -g reads to link them (run `npm run docs` when this fails)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { man: string[]; files: string[] };
    expect(pkg.man).toEqual([...manPages(manual).keys()].map((file) => `./dist/man/${file}`));
    expect(pkg.man).toContain('./dist/man/forgectl-tokens.1');
    expect(pkg.files).toContain('dist/');
  });

  it.skipIf(!BUILT)('are written by the build, one per group of commands, each holding every command of it; groff reads them without a warning', (context) => {
    needs(context, 'man');
    const folder = join(root, 'dist', 'man');
    expect(readdirSync(folder).sort()).toEqual([...manPages(manual).keys()].sort());
    const show = (file: string) => spawnSync('man', ['--warnings', '-l', join(folder, file)], { encoding: 'utf8', env: { PATH: process.env.PATH, LANG: 'C.UTF-8', MANWIDTH: '100' } });
    for (const group of manual.groups) {
      const { stdout, stderr, status } = show(`forgectl-${group.name}.1`);
      expect({ status, stderr }, group.name).toEqual({ status: 0, stderr: '' });
      for (const command of group.commands) expect(stdout, command.path).toContain(command.usage);
    }
    const main = show('forgectl.1');
    expect(main.stderr).toBe('');
    // Options are hyphen-minus, as typed: they can be copied from the page.
    for (const heading of ['GLOBAL OPTIONS', 'ENVIRONMENT', 'EXIT STATUS', 'FILES', '--profile <name>', 'forgectl-tokens(1)']) expect(main.stdout).toContain(heading);
  });
});
