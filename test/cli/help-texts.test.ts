/**
 * Help that goes to a pipe or a file is printed by bin/forgectl.cjs from texts rendered at build time (dist/help/),
 * without loading the bundle: every text must be what the command line itself writes, and the writing must behave as
 * the bundle's stdout does (a reader that goes away, a slow reader).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { manifest } from '../../src/commands/manifest.js';
import { BIN, BUILT, run, runBin, tempDir } from '../helpers/cli.js';

const helpDir = fileURLToPath(new URL('../../dist/help/', import.meta.url));
const env = { FORGECTL_CONFIG_DIR: tempDir() };

describe.skipIf(!BUILT)('help rendered at build time', () => {
  it('has a text for the root, every group and every command, and each is what the command line writes', async () => {
    const paths = new Set(['']);
    for (const entry of manifest) {
      const words = entry.path.split(' ');
      for (let length = 1; length <= words.length; length++) paths.add(words.slice(0, length).join(' '));
    }
    const files = readdirSync(helpDir);
    expect(files.length).toBe(paths.size + Object.keys(HELP_TOPICS).length);
    for (const path of paths) {
      const words = path ? path.split(' ') : [];
      const live = await run([...words, '--help'], { env });
      expect(live.code).toBe(0);
      expect(readFileSync(`${helpDir}${['forgectl', ...words].join('~')}.txt`, 'utf8'), `forgectl ${path} --help`).toBe(live.stdout);
    }
    for (const topic of Object.keys(HELP_TOPICS)) expect(readFileSync(`${helpDir}help~${topic}.txt`, 'utf8')).toBe((await run(['help', topic], { env })).stdout);
  });

  it('the bin prints them for every form of asking, and the bundle answers what has no text (exit 2 for unknown words)', async () => {
    const text = (name: string) => readFileSync(`${helpDir}${name}.txt`, 'utf8');
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
    expect(slow.stdout).toBe(readFileSync(`${helpDir}forgectl~freeze-periods~create.txt`, 'utf8'));
    const head = spawnSync('bash', ['-c', '"$0" "$1" --help | head -1; echo "exit ${PIPESTATUS[0]}"', process.execPath, BIN], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
    expect(head.stdout).toBe('Usage: forgectl <command> [options]\nexit 0\n');
    expect(head.stderr).toBe('');
  });
});
