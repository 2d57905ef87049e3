/**
 * Text wrapped at white space to a width, written once for help (cli/help-layout.ts, which bin/forgectl.cjs loads
 * without the bundle, built into dist/help-layout.cjs) and for the messages on a terminal's stderr (io.ts). This
 * module imports nothing, so that file stays small.
 */

/** Columns a text takes: colour codes take none. */
// eslint-disable-next-line no-control-regex
export const displayWidth = (text: string): number => text.replace(/\x1b\[\d*(;\d*)*m/g, '').length;

/**
 * Wraps a text at white space to a width, keeping its own line breaks (commander's Help.boxWrap): a line breaks
 * where the white space before the word that would overflow was; a word longer than the width has a line to itself.
 */
export function wrapText(text: string, width: number): string {
  const wrapped: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push('');
      continue;
    }
    let current = [chunks.shift()!];
    let currentWidth = displayWidth(current[0]);
    for (const chunk of chunks) {
      const chunkWidth = displayWidth(chunk);
      if (currentWidth + chunkWidth <= width) {
        current.push(chunk);
        currentWidth += chunkWidth;
        continue;
      }
      wrapped.push(current.join(''));
      const next = chunk.trimStart();
      current = [next];
      currentWidth = displayWidth(next);
    }
    wrapped.push(current.join(''));
  }
  return wrapped.join('\n');
}

/** The labels a message on stderr starts with; its continuation lines are indented under the text after one. */
const LABEL = /^(?:error|hint|warning|note|attention): /;
/** Below this many columns for the text after the label, a message is left to the terminal to break. */
const MIN_MESSAGE_WIDTH = 20;

/**
 * Lines for a terminal `width` columns wide: each line broken at white space, its continuation lines indented under
 * the text after its label (`error: `, `hint: `, `warning: ` …). Nothing but the line breaks changes.
 */
export function wrapMessage(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      const indent = LABEL.exec(line)?.[0].length ?? 0;
      if (width - indent < MIN_MESSAGE_WIDTH || displayWidth(line) <= width) return line;
      const [first, ...rest] = wrapText(line.slice(indent), width - indent).split('\n');
      return [line.slice(0, indent) + first, ...rest.map((next) => ' '.repeat(indent) + next)].join('\n');
    })
    .join('\n');
}
