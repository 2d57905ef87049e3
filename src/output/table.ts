import { Chalk } from 'chalk';
import Table from 'cli-table3';
import tableUtils from 'cli-table3/src/utils.js';
import { oneLine } from './formats.js';

/** No borders and no row separators: columns apart by two spaces, as `gh` and `kubectl` print lists. */
const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
};
const GAP = 2;
const displayWidth = tableUtils.strlen;
/** Columns are never squeezed below this (or their own width, when narrower). */
const MIN_COLUMN = 6;

/**
 * Column widths that fit `available` columns of terminal: every column keeps its natural width when all fit;
 * otherwise the widest are cut down to the same cap, the largest that fits (narrow columns stay whole).
 */
export function fitColumns(natural: number[], available: number): number[] {
  const room = available - GAP * Math.max(0, natural.length - 1);
  if (natural.reduce((sum, w) => sum + w, 0) <= room) return natural;
  const floor = (w: number) => Math.min(w, MIN_COLUMN);
  let cap = Math.max(...natural);
  while (cap > MIN_COLUMN && natural.reduce((sum, w) => sum + Math.max(floor(w), Math.min(w, cap)), 0) > room) cap--;
  return natural.map((w) => Math.max(floor(w), Math.min(w, cap)));
}

function render(head: string[] | undefined, rows: string[][], widths: number[]): string {
  // colWidths are content widths here (no padding); cli-table3 cuts longer cells with an ellipsis.
  const table = new Table({ head: head ?? [], colWidths: widths, wordWrap: false, truncate: '…', chars: CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
  for (const row of rows) table.push(row);
  return `${table.toString().split('\n').map((line) => line.trimEnd()).join('\n')}\n`;
}

/** A list on a terminal: a header line and aligned columns fitted to the terminal's width. */
export function listTable(columns: string[], rows: string[][], options: { color: boolean; width: number }): string {
  const chalk = new Chalk({ level: options.color ? 1 : 0 });
  const cells = rows.map((row) => row.map(oneLine));
  const natural = columns.map((column, i) => Math.max(displayWidth(column), ...cells.map((row) => displayWidth(row[i]))));
  const widths = fitColumns(natural, options.width);
  // A dotted header too wide keeps its end, where paths differ (…request.iid, …quest.title); others are cut at the end.
  const head = columns.map((column, i) => (column.includes('.') && column.length > widths[i] ? `…${column.slice(column.length - widths[i] + 1)}` : column));
  return render(head.map((c) => chalk.bold(c)), cells, widths);
}

/** One record on a terminal: keys aligned in a column, each value whole on its line. */
export function verticalTable(pairs: Array<[string, string]>, color: boolean): string {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const keyWidth = Math.max(0, ...pairs.map(([key]) => displayWidth(key)));
  return pairs.map(([key, value]) => `${chalk.bold(key)}${' '.repeat(keyWidth - displayWidth(key) + GAP)}${oneLine(value)}`.trimEnd()).join('\n') + '\n';
}
