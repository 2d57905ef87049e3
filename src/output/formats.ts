import { isUtf8 } from 'node:buffer';

/** Output formats of contract §4. */
export const FORMATS = ['table', 'json', 'ndjson', 'yaml', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * Server-supplied text made harmless for a terminal: C0 and C1 control characters and DEL (escape sequences that
 * retitle windows, clear screens or move the cursor) become visible `\xNN` escapes. Tab, line feed and carriage
 * return are left to the caller (each format treats them its own way).
 */
export function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * JSON or YAML text made harmless for a terminal and still the same document: DEL and the C1 controls (U+007F to
 * U+009F, which both leave raw, and some terminals read as escape sequences) become `\u00NN` escapes in JSON and `\xNN`
 * in YAML (whose library double-quotes every string holding one, where `\xNN` is an escape).
 */
export function escapeC1(text: string, format: 'json' | 'yaml'): string {
  return text.replace(/[\x7f-\x9f]/g, (c) => `${format === 'json' ? '\\u00' : '\\x'}${c.charCodeAt(0).toString(16)}`);
}

/** A cell on one terminal line: whitespace runs with line breaks or tabs become one space, controls visible. */
export function oneLine(text: string): string {
  return visible(text.replace(/[ \t]*[\r\n\t][\s]*/g, ' '));
}

export function csvCell(text: string): string {
  const safe = visible(text);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(cells: string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A tab-separated line for pipes: no quoting; backslashes, tabs, line breaks and controls escaped, one record a line. */
export function tsvLine(cells: string[]): string {
  return `${cells.map((c) => visible(c.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n'))).join('\t')}\n`;
}

/**
 * A JSON array of objects turned into NDJSON in place, byte for byte as the service sent the objects (nothing
 * parsed or serialised again, nothing copied): the `[` is dropped, and the commas between the objects and the `]`
 * become line feeds. Returns undefined, and leaves the bytes alone, unless they are valid UTF-8 holding exactly
 * `count` objects with no line break between tokens (then the records are written from the parsed values).
 */
export function ndjsonInPlace(bytes: Buffer, count: number): Buffer | undefined {
  if (!isUtf8(bytes)) return undefined;
  const ends: number[] = []; // the comma after each object, and the closing bracket
  let depth = 0;
  let objects = 0;
  let open = -1;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x22) {
      // To the closing quote at native speed: the next `"` not escaped by an odd run of backslashes.
      let close = bytes.indexOf(0x22, i + 1);
      while (close > 0 && escaped(bytes, close)) close = bytes.indexOf(0x22, close + 1);
      if (close < 0) return undefined;
      i = close;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (depth === 0) open = i;
      else if (depth === 1 && byte === 0x7b) objects++;
      depth++;
    } else if (byte === 0x7d || byte === 0x5d) {
      depth--;
      if (depth === 0) ends.push(i);
    } else if (byte === 0x2c && depth === 1) {
      ends.push(i);
    } else if (byte === 0x0a || byte === 0x0d) {
      return undefined;
    }
  }
  if (open < 0 || bytes[open] !== 0x5b || depth !== 0 || objects !== count || ends.length !== Math.max(count, 1)) return undefined;
  for (const end of ends) bytes[end] = 0x0a;
  return count ? bytes.subarray(open + 1, ends[ends.length - 1] + 1) : Buffer.alloc(0);
}

/** Whether the byte at `at` is escaped: preceded by an odd number of backslashes. */
function escaped(bytes: Buffer, at: number): boolean {
  let backslashes = 0;
  while (bytes[at - 1 - backslashes] === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}
