// Renders the help of every command and every help topic into a folder, one file each, as `forgectl … --help`
// writes it, with the layout of its items and paragraphs deferred (src/cli/help-layout.ts). scripts/build.mjs
// bundles this file, runs it into dist/help/ and joins that folder into dist/help.pack; bin/forgectl.cjs prints the
// texts from there, laid out to the width of the terminal or to 80 columns, without loading the bundle.
// Usage (after bundling): node help-texts.cjs OUT_DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { HELP_TOPICS } from '../src/cli/help-topics.js';
import { manifest } from '../src/commands/manifest.js';
import { main } from '../src/main.js';

/** The file of a command's help (forgectl~tokens~rotate.txt) or a topic's (help~exit-codes.txt): bin/forgectl.cjs names them alike. */
const helpFileName = (words: string[], topic = false): string => `${[topic ? 'help' : 'forgectl', ...words].join('~')}.txt`;

class Capture extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

async function render(argv: string[]): Promise<string> {
  const stdout = Object.assign(new Capture(), { deferHelpLayout: true });
  const stderr = new Capture();
  const code = await main(argv, { env: {}, stdin: Readable.from([]), stdout, stderr });
  if (code !== 0 || stderr.text || !stdout.text) throw new Error(`forgectl ${argv.join(' ')}: exit ${code}, ${stderr.text}`);
  return stdout.text;
}

async function renderAll(out: string | undefined): Promise<void> {
  if (!out) throw new Error('usage: help-texts OUT_DIR');
  mkdirSync(out, { recursive: true });
  const paths = new Set<string>(['']);
  for (const entry of manifest) {
    const words = entry.path.split(' ');
    for (let length = 1; length <= words.length; length++) paths.add(words.slice(0, length).join(' '));
  }
  for (const path of paths) {
    const words = path ? path.split(' ') : [];
    writeFileSync(join(out, helpFileName(words)), await render([...words, '--help']));
  }
  for (const topic of Object.keys(HELP_TOPICS)) writeFileSync(join(out, helpFileName([topic], true)), await render(['help', topic]));
}

renderAll(process.argv[2]).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
