/** Output formats of contract §4. */
export const FORMATS = ['table', 'json', 'ndjson', 'yaml', 'csv'] as const;
export type Format = (typeof FORMATS)[number];
/** Formats of -o that only some commands write (their CommandDef.formats): `variables export -o dotenv`. */
export const OWN_FORMATS = ['dotenv'] as const;

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

/** A cell of a tab-separated line for pipes: no quoting; backslashes, tabs, line breaks and controls escaped. */
export function tsvCell(text: string): string {
  return visible(text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r/g, '\\r').replace(/\n/g, '\\n'));
}

