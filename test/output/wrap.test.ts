import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { wrapParagraph } from '../../src/cli/help-layout.js';
import { forStderr, Io } from '../../src/output/io.js';
import { wrapMessage, wrapText } from '../../src/output/wrap.js';
import { run } from '../helpers/cli.js';

const LONG = 'error: whose access? give --user USER, --group GROUP [--recursive] or --project PROJECT';
/** The lines of a message joined again: the text as it was, whatever the line breaks. */
const unwrapped = (text: string) => text.replace(/\n +/g, ' ');

describe('wrapping text at white space', () => {
  it('breaks between words, never inside one, keeping the text\'s own line breaks; a word too long has a line of its own', () => {
    expect(wrapText('one two three four', 9)).toBe('one two\nthree\nfour');
    expect(wrapText('one\n\ntwo three', 7)).toBe('one\n\ntwo\nthree');
    expect(wrapText('a https://example.com/a/very/long/path b', 10)).toBe('a\nhttps://example.com/a/very/long/path\nb');
    // Colour codes take no columns.
    expect(wrapText('\u001b[1mbold\u001b[22m word', 9)).toBe('\u001b[1mbold\u001b[22m word');
  });

  it('is what help wraps with, commander\'s rule kept: below 40 columns help is left as it is', () => {
    const text = 'the quick brown fox jumps over the lazy dog, then runs far away into the woods';
    expect(wrapParagraph(text, 40)).toBe(wrapText(text, 40));
    expect(wrapParagraph(text, 39)).toBe(text);
  });

  it('indents a message\'s continuation lines under the text after its label, each line of it on its own', () => {
    const wrapped = wrapMessage(`${LONG}\nhint: forgectl access report --help lists its options and examples`, 40);
    expect(wrapped).toBe([
      'error: whose access? give --user USER,',
      '       --group GROUP [--recursive] or',
      '       --project PROJECT',
      'hint: forgectl access report --help',
      '      lists its options and examples',
    ].join('\n'));
    expect(unwrapped(wrapped)).toBe(`${LONG}\nhint: forgectl access report --help lists its options and examples`);
    for (const line of wrapped.split('\n')) expect(line.length).toBeLessThanOrEqual(40);
    // A line without a label wraps from the margin; a line that fits is kept; too narrow a terminal breaks it itself.
    expect(wrapMessage('no way in: no membership, direct, inherited or shared', 30)).toBe('no way in: no membership,\ndirect, inherited or shared');
    expect(wrapMessage('warning: short', 40)).toBe('warning: short');
    expect(wrapMessage(LONG, 25)).toBe(LONG);
  });
});

describe('messages on stderr', () => {
  const stream = (tty: boolean, columns?: number) => Object.assign(new PassThrough(), { isTTY: tty, columns });

  it('are wrapped on a terminal only: a pipe or a file gets each on one line, as scripts grep them', () => {
    expect(forStderr(stream(true, 40), LONG)).toBe(wrapMessage(LONG, 40));
    expect(forStderr(stream(true, 40), LONG)).not.toBe(LONG);
    expect(forStderr(stream(false, 40), LONG)).toBe(LONG);
    // A terminal that reports no width is left to break lines itself.
    expect(forStderr(stream(true), LONG)).toBe(LONG);
  });

  it('a command\'s error and hint: to the width of the terminal, each line whole in a pipe', async () => {
    const args = ['access', 'report'];
    const shown = await run(args, { tty: true, columns: 40 });
    const piped = await run(args);
    expect([shown.code, piped.code]).toEqual([2, 2]);
    expect(piped.stderr.split('\n')[0]).toBe(LONG);
    expect(shown.stderr.split('\n').slice(0, 3)).toEqual(wrapMessage(LONG, 40).split('\n'));
    expect(unwrapped(shown.stderr)).toBe(piped.stderr);
  });

  it('warnings and notes too, --quiet still silencing notes', () => {
    const written = (tty: boolean, quiet = false) => {
      const stderr = Object.assign(new PassThrough(), { isTTY: tty, columns: 40 });
      const io = new Io({ stdin: new PassThrough(), stdout: new PassThrough(), stderr }, { quiet, color: false });
      io.warn('the token expires in 3 days and nothing rotates it');
      io.note('hint: forgectl tokens rotate --help says how to rotate it');
      return String(stderr.read() ?? '');
    };
    expect(written(true)).toBe([
      'warning: the token expires in 3 days and',
      '         nothing rotates it',
      'hint: forgectl tokens rotate --help says',
      '      how to rotate it',
      '',
    ].join('\n'));
    expect(written(false)).toBe('warning: the token expires in 3 days and nothing rotates it\nhint: forgectl tokens rotate --help says how to rotate it\n');
    expect(written(true, true)).toBe('warning: the token expires in 3 days and\n         nothing rotates it\n');
  });
});
