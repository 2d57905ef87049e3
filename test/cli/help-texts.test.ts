/**
 * Help is printed by bin/forgectl.cjs from texts rendered at build time (dist/help.pack, their layout deferred), laid out
 * to 80 columns or to the terminal's width, without loading the bundle: every text, at every width, must be what the
 * command line itself writes, and the writing must behave as the bundle's stdout does (a reader that goes away, a
 * slow reader).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { layoutDeferred } from '../../src/cli/help-layout.js';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { manifest } from '../../src/commands/manifest.js';
import { BIN, BUILT, run, runBin, tempDir } from '../helpers/cli.js';
import { needs, ptyRunner } from '../helpers/system.js';

const helpPack = fileURLToPath(new URL('../../dist/help', import.meta.url));
/** The rendered texts by name (forgectl~tokens~rotate), read once from dist/help.pack at the places its index gives. */
let texts: Map<string, string> | undefined;
const helpTexts = (): Map<string, string> => {
  if (texts) return texts;
  const index = JSON.parse(readFileSync(`${helpPack}.index.json`, 'utf8')) as Record<string, [number, number]>;
  const pack = readFileSync(`${helpPack}.pack`);
  texts = new Map(Object.entries(index).map(([file, [offset, length]]) => [file.replace(/\.txt$/, ''), pack.toString('utf8', offset, offset + length)]));
  return texts;
};
/** The names of the rendered texts. */
const helpNames = () => [...helpTexts().keys()];
const env = { FORGECTL_CONFIG_DIR: tempDir() };
/** A rendered text laid out as the bin lays it out to a pipe (80 columns) or to a terminal this wide. */
const laidOut = (name: string, width = 80) => {
  const text = helpTexts().get(name);
  if (text === undefined) throw new Error(`no help text ${name} in dist/help.pack`);
  return layoutDeferred(text, width);
};

describe.skipIf(!BUILT)('help rendered at build time', () => {
  it('has a text for the root, every group and every command, and each is what the command line writes', async () => {
    const paths = new Set(['']);
    for (const entry of manifest) {
      const words = entry.path.split(' ');
      for (let length = 1; length <= words.length; length++) paths.add(words.slice(0, length).join(' '));
    }
    const files = helpNames();
    expect(files.length).toBe(paths.size + Object.keys(HELP_TOPICS).length);
    for (const path of paths) {
      const words = path ? path.split(' ') : [];
      const live = await run([...words, '--help'], { env });
      expect(live.code).toBe(0);
      expect(laidOut(['forgectl', ...words].join('~')), `forgectl ${path} --help`).toBe(live.stdout);
    }
    for (const topic of Object.keys(HELP_TOPICS)) expect(laidOut(`help~${topic}`)).toBe((await run(['help', topic], { env })).stdout);
  });

  it('laid out to a terminal of any width, each is what the command line writes on that terminal', async () => {
    const files = helpNames();
    for (const width of [30, 52, 100, 167]) {
      for (const name of files) {
        const [first, ...words] = name.split('~');
        const live = await run(first === 'help' ? ['help', ...words] : [...words, '--help'], { env, tty: true, columns: width });
        expect(laidOut(name, width), `${name} at ${width} columns`).toBe(live.stdout);
      }
    }
    // The width matters: a long description wraps at 60 columns, not at 200.
    expect(laidOut('forgectl~tokens~rotate', 60)).not.toBe(laidOut('forgectl~tokens~rotate', 200));
  });

  it('every text fits 80 and 100 columns: an option whose term is too long for the column stands on its own line', () => {
    for (const width of [80, 100]) {
      for (const name of helpNames()) {
        // Examples are command lines, kept whole to be copied, and a word longer than the room cannot be wrapped;
        // nothing else passes the width.
        const over = laidOut(name, width).split('\n').filter((line) => line.length > width && !/^\s*(\$ |forgectl )/.test(line) && /\s\S/.test(line.trim()));
        expect(over, `${name} at ${width} columns`).toEqual([]);
      }
    }
    expect(laidOut('forgectl~notes~list', 80)).toMatch(/\n {2}--activity-filter <all_notes\|only_comments\|only_activity>\n {40}all_notes \(default\)/);
  });

  it('on a real terminal the bin prints what the bundle prints there', async (context) => {
    const pty = ptyRunner();
    needs(context, 'pty');
    const onTerminal = (args: string) => {
      const [command, argv] = pty!(`stty cols 70 rows 40 2>/dev/null; "${process.execPath}" "${BIN}" ${args}`);
      return spawnSync(command, argv, { encoding: 'utf8', env: { PATH: process.env.PATH, TERM: 'xterm', ...env } }).stdout.replace(/\r/g, '');
    };
    const fromBin = onTerminal('tokens rotate --help');
    expect(fromBin).toBe(laidOut('forgectl~tokens~rotate', 70));
    // With an option before it, help comes from the bundle.
    expect(onTerminal('-q tokens rotate --help')).toBe(fromBin);
  });

  it('the bin prints them for every form of asking, and the bundle answers what has no text (exit 2 for unknown words)', async () => {
    const text = (name: string) => laidOut(name);
    for (const [line, name] of [
      ['--help', 'forgectl'],
      ['-h', 'forgectl'],
      ['help', 'forgectl'],
      ['users --help', 'forgectl~users'],
      ['help users', 'forgectl~users'],
      ['tokens rotate -h', 'forgectl~tokens~rotate'],
      ['help tokens rotate', 'forgectl~tokens~rotate'],
      ['help exit-codes', 'help~exit-codes'],
    ]) {
      expect(await runBin(line.split(' '), { env }), line).toEqual(expect.objectContaining({ code: 0, stdout: text(name), stderr: '' }));
    }
    const unknown = await runBin(['nosuchcmd', '--help'], { env });
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain('unknown command "nosuchcmd"');
    // With an option before it, help comes from the bundle, the same text.
    expect(await runBin(['-q', 'users', '--help'], { env })).toEqual(expect.objectContaining({ code: 0, stdout: text('forgectl~users'), stderr: '' }));
  });

  it('a reader that is gone before the help is written (EPIPE) ends the run quietly with exit 0; a slow reader gets all of it', async () => {
    for (const argv of [['--help'], ['--version']]) {
      const child = spawn(process.execPath, [BIN, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
      child.stdout.destroy(); // closed before the process has started: its write fails with EPIPE
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ code, stderr }, argv.join(' ')).toEqual({ code: 0, stderr: '' });
    }
    const slow = spawnSync('sh', ['-c', '"$0" "$1" freeze-periods create --help | (sleep 1; cat)', process.execPath, BIN], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
    expect(slow.stdout).toBe(laidOut('forgectl~freeze-periods~create'));
    const head = spawnSync('bash', ['-c', '"$0" "$1" --help | head -1; echo "exit ${PIPESTATUS[0]}"', process.execPath, BIN], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
    expect(head.stdout).toBe('Usage: forgectl <command> [options]\nexit 0\n');
    expect(head.stderr).toBe('');
  });
});
