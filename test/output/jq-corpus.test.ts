// forgectl's --jq against jq itself, on the cases of jq's own test suite that run on one plain JSON input
// (test/fixtures/jq-corpus.json, extracted by scripts/jq-corpus.mjs from jq 1.7.1's tests/jq.test). Two yardsticks:
// the results the suite expects (compared as JSON values, as jq's own test runner does), and the text the jq installed
// on this machine prints with `jq -c -r` (Debian's; skipped, with the reason shown, where there is none).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compileJq, printJq, type JqProgram } from '../../src/output/jq.js';
import { Io } from '../../src/output/io.js';
import { needs } from '../helpers/system.js';

interface Case {
  line: number;
  program: string;
  input: string;
  expected: string[];
}
const { cases } = JSON.parse(readFileSync(new URL('../fixtures/jq-corpus.json', import.meta.url), 'utf8')) as { cases: Case[] };

/** What forgectl prints for one record (the input) with --jq PROGRAM, or why it failed. */
async function forgectl(test: Case): Promise<{ program?: JqProgram; text?: string; failed?: string }> {
  let program: JqProgram;
  try {
    program = await compileJq(test.program, {});
  } catch (error) {
    return { failed: (error as Error).message };
  }
  let text = '';
  const stdout = new Writable({ write: (chunk, _e, cb) => void ((text += chunk.toString()), cb()) });
  const io = new Io({ stdin: Readable.from([]), stdout, stderr: new Writable({ write: (_c, _e, cb) => cb() }) }, { quiet: true, color: false });
  try {
    await printJq(program, { one: JSON.parse(test.input) }, io);
  } catch (error) {
    return { program, failed: (error as Error).message };
  }
  return { program, text };
}


describe('--jq on the cases of jq\'s own test suite', () => {
  it(`agrees with the results jq 1.7.1's suite expects (${cases.length} cases)`, async () => {
    const disagree: string[] = [];
    for (const test of cases) {
      const ours = await forgectl(test);
      const outcome = ours.program?.run([JSON.parse(test.input)]).outcomes[0];
      const got = outcome && outcome.error === undefined ? outcome.lines.map((line) => JSON.parse(line) as unknown) : undefined;
      if (!got || !isDeepStrictEqual(got, test.expected.map((text) => JSON.parse(text) as unknown))) disagree.push(`line ${test.line}: ${test.program}`);
    }
    process.stdout.write(`--jq agrees with jq 1.7.1's expected results on ${cases.length - disagree.length} of ${cases.length} cases; not on:\n  ${disagree.join('\n  ')}\n`);
    // The ones that disagree feed the input through JavaScript's numbers (as every record is): integers beyond
    // 2^53 lose digits that jq 1.7 keeps.
    expect(cases.length - disagree.length).toBeGreaterThanOrEqual(AGREE_WITH_SUITE);
  }, 60_000);

  it('prints what the installed jq prints with -c -r', async (context) => {
    needs(context, 'jq');
    const jqVersion = spawnSync('jq', ['--version'], { encoding: 'utf8' }).stdout.trim();
    const disagree: string[] = [];
    for (const test of cases) {
      const theirs = spawnSync('jq', ['-c', '-r', test.program], { input: test.input, encoding: 'utf8', timeout: 2000 });
      const ours = await forgectl(test);
      const same = theirs.status === 0 ? ours.text === theirs.stdout : ours.failed !== undefined && theirs.status === 5;
      if (!same) disagree.push(`line ${test.line}: ${test.program}`);
    }
    process.stdout.write(`--jq prints what ${jqVersion} prints on ${cases.length - disagree.length} of ${cases.length} cases; not on:\n  ${disagree.join('\n  ')}\n`);
    expect(cases.length - disagree.length).toBeGreaterThanOrEqual(AGREE_WITH_INSTALLED[jqVersion] ?? 0);
  }, 120_000);
});

/** The counts measured when the corpus was made: fewer is a regression. */
const AGREE_WITH_SUITE = 404;
const AGREE_WITH_INSTALLED: Record<string, number> = { 'jq-1.6': 348 };
