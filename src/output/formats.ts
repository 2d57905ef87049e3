/** Output formats of contract §4. */
export const FORMATS = ['table', 'json', 'ndjson', 'yaml', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A tab-separated line for pipes: no quoting, tabs and newlines escaped so one record stays one line. */
export function tsvLine(cells: string[]): string {
  return `${cells.map((c) => c.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n')).join('\t')}\n`;
}
