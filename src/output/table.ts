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
/** Values this short (true, false, a short code) keep their column's header whole while long values can give room. */
const SHORT_VALUE = 5;
/** Values are cut to no less than this before a column is left out. */
const READABLE = 10;
/** The column that names each record, in order of preference: it stays whole as long as it fits at all. */
const IDENTIFYING = ['path_with_namespace', 'full_path', 'username', 'path', 'name', 'title', 'key'];
/** Columns that hold a command to copy (an audit's `fix`): cut, they are useless, so they stay whole. */
const WHOLE = ['fix'];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T/;
/** What a time column may hold besides times: a word such as `never`. */
const NOT_A_TIME = /^[a-z ]{1,10}$/i;

/**
 * What a command says of its columns on a narrow terminal, where the defaults are not enough: the column that names
 * each record (when it is not one of IDENTIFYING), columns that must stay whole besides `fix` and times, and the
 * columns to leave out first, in this order (by default the last columns go first).
 */
export interface ColumnPriority {
  identifying?: string;
  whole?: readonly string[];
  dropFirst?: readonly string[];
}

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

/**
 * A column's widths: of its header, of its widest value, of its values as dates (time columns); whether it is never
 * left out (keep), and whether it is never cut either (whole: rather than cut it, the list is shown record by record).
 */
export interface ColumnSize {
  header: number;
  content: number;
  dateContent?: number;
  keep?: boolean;
  whole?: boolean;
  /** The header is never cut. */
  wholeHeader?: boolean;
  /** Where it comes among the columns left out first (ColumnPriority.dropFirst). */
  dropRank?: number;
}

const sum = (widths: number[]) => widths.reduce((total, w) => total + w, 0);

/**
 * The widths of these columns in `room`, cutting what costs least first: headers wider than their values (the last
 * columns first; only headers not whole), then times shown as dates (at once when `datesOnly`), then the values of columns that are not kept, the widest first and to
 * no less than READABLE. Undefined when that is not enough.
 */
function fitShown(sizes: ColumnSize[], room: number, datesOnly: boolean): { widths: number[]; dates: boolean } | undefined {
  const hasTimes = sizes.some((size) => size.dateContent !== undefined);
  for (const dates of !hasTimes ? [false] : datesOnly ? [true] : [false, true]) {
    // Where long values must be cut anyway, the headers of columns of short values (true/false) stay whole: the
    // room comes from those values ("prote…" says nothing). Where cutting headers alone is enough, values stay whole.
    const plain = fitWith(sizes, room, dates, false);
    const fit = plain && !plain.capped ? plain : (fitWith(sizes, room, dates, true) ?? plain);
    if (fit) return { widths: fit.widths, dates };
  }
  return undefined;
}

/**
 * Headers cut to their values (the last columns first; not those of short values when `spareShort`), then long
 * values capped (`capped`) when that is not enough.
 */
function fitWith(sizes: ColumnSize[], room: number, dates: boolean, spareShort: boolean): { widths: number[]; capped: boolean } | undefined {
  const hasTimes = sizes.some((size) => size.dateContent !== undefined);
  const content = sizes.map((size) => (dates && size.dateContent !== undefined ? size.dateContent : size.content));
  const widths = sizes.map((size, i) => Math.max(size.header, content[i]));
  let over = sum(widths) - room;
  for (let i = widths.length - 1; i >= 0 && over > 0; i--) {
    if (spareShort && content[i] <= SHORT_VALUE) continue;
    const cut = Math.min(over, widths[i] - Math.max(content[i], sizes[i].wholeHeader ? sizes[i].header : Math.min(sizes[i].header, MIN_COLUMN)));
    if (cut > 0) {
      widths[i] -= cut;
      over -= cut;
    }
  }
  if (over <= 0) return { widths, capped: false };
  if (hasTimes && !dates) return undefined;
  const floors = widths.map((w, i) => (sizes[i].keep || sizes[i].dateContent !== undefined ? w : Math.max(sizes[i].wholeHeader ? sizes[i].header : 0, Math.min(w, READABLE))));
  const capped = (cap: number) => widths.map((w, i) => Math.max(floors[i], Math.min(w, cap)));
  let cap = Math.max(...widths);
  while (cap > 0 && sum(capped(cap)) > room) cap--;
  return sum(capped(cap)) <= room ? { widths: capped(cap), capped: true } : undefined;
}

/**
 * How a list's columns fit `available` columns of terminal, as gh fits its tables: what costs least is given up
 * first (see fitShown); when that is not enough and the columns are the command's own (not --fields), the columns
 * that are not kept are left out one at a time, those the command ranks first, else the last. Undefined (the list is better shown record by record)
 * when that would leave out more columns than it shows, or when not even the kept ones fit and one of them must
 * stay whole; else, when the kept ones do not fit, the widest columns are cut to the same cap (fitColumns).
 */
export function planColumns(sizes: ColumnSize[], available: number, mayDrop: boolean): { shown: number[]; widths: number[]; dates: boolean } | undefined {
  let shown = sizes.map((_, i) => i);
  for (;;) {
    // Once a column must go, times are shown as dates: whole times never cost a column.
    const fit = fitShown(shown.map((i) => sizes[i]), available - GAP * Math.max(0, shown.length - 1), shown.length < sizes.length);
    if (fit) return sizes.length - shown.length > shown.length ? undefined : { shown, ...fit };
    const drop = mayDrop ? nextToDrop(sizes, shown) : undefined;
    if (drop === undefined) break;
    shown = shown.filter((i) => i !== drop);
  }
  if (shown.some((i) => sizes[i].whole)) return undefined;
  return { shown, widths: fitColumns(shown.map((i) => Math.max(sizes[i].header, sizes[i].dateContent ?? sizes[i].content)), available), dates: true };
}

/** The column to leave out next: the first of those the command ranks, else the last one not kept. */
function nextToDrop(sizes: ColumnSize[], shown: number[]): number | undefined {
  const ranked = shown.filter((i) => !sizes[i].keep && sizes[i].dropRank !== undefined).sort((a, b) => sizes[a].dropRank! - sizes[b].dropRank!);
  return ranked[0] ?? [...shown].reverse().find((i) => !sizes[i].keep);
}

/**
 * Rows laid out by cli-table3 a slice at a time: its layout costs more than linear time in the rows (20,000 rows took
 * 12 s in one table, seconds in which Ctrl-C waited), and with the widths fixed every slice lines up the same.
 */
const ROWS_PER_TABLE = 250;

function render(head: string[] | undefined, rows: string[][], widths: number[]): string {
  const lines: string[] = [];
  for (let start = 0; start === 0 || start < rows.length; start += ROWS_PER_TABLE) {
    // colWidths are content widths here (no padding); cli-table3 cuts longer cells with an ellipsis.
    const table = new Table({ head: start === 0 ? (head ?? []) : [], colWidths: widths, wordWrap: false, truncate: '…', chars: CHARS, style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 } });
    for (const row of rows.slice(start, start + ROWS_PER_TABLE)) table.push(row);
    const text = table.toString();
    if (text) lines.push(...text.split('\n').map((line) => line.trimEnd()));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A list on a terminal: a header line and aligned columns fitted to the terminal's width. The id and the column
 * that names each record stay whole as long as they fit at all, times are shown as dates rather than cut, `fix`
 * and the command's whole columns are never cut nor left out. Where a table would have to cut those or leave out
 * most columns, each record is shown as a block of lines instead (as one record is). `left` lists the columns
 * left out (only where `mayDrop`: the command's own columns, not --fields).
 */
export function listTable(columns: string[], rows: string[][], options: { color: boolean; width: number; mayDrop?: boolean; priority?: ColumnPriority }): { text: string; left: string[] } {
  const chalk = new Chalk({ level: options.color ? 1 : 0 });
  const cells = rows.map((row) => row.map(oneLine));
  const identifying = options.priority?.identifying ?? IDENTIFYING.find((name) => columns.includes(name));
  const whole = new Set([...WHOLE, ...(options.priority?.whole ?? [])]);
  const sizes = columns.map((column, i): ColumnSize => {
    const values = cells.map((row) => row[i]).filter(Boolean);
    const times = values.some((value) => TIMESTAMP.test(value)) && values.every((value) => TIMESTAMP.test(value) || NOT_A_TIME.test(value));
    return {
      header: displayWidth(column),
      content: Math.max(0, ...values.map(displayWidth)),
      dateContent: times ? Math.max(10, ...values.filter((value) => !TIMESTAMP.test(value)).map(displayWidth)) : undefined,
      keep: column === identifying || column === 'id' || column === 'iid' || whole.has(column),
      whole: whole.has(column),
      // A header cut to its values ("environme…", "defaul…") no longer names its column: where columns may be left
      // out (the command's own), the last are left out rather than a header cut; --fields' columns are cut instead.
      wholeHeader: Boolean(options.mayDrop),
      dropRank: rank(options.priority?.dropFirst, column),
    };
  });
  const plan = planColumns(sizes, options.width, Boolean(options.mayDrop));
  if (!plan) return { text: rows.map((row) => verticalTable(columns.map((column, i) => [column, row[i]]), options.color)).join('\n'), left: [] };
  const { shown, widths, dates } = plan;
  // A dotted header too wide keeps its end, where paths differ (…request.iid, …quest.title); others are cut at the end.
  const head = shown.map((i, n) => (columns[i].includes('.') && columns[i].length > widths[n] ? `…${columns[i].slice(columns[i].length - widths[n] + 1)}` : columns[i]));
  const body = cells.map((row) => shown.map((i) => (dates && sizes[i].dateContent !== undefined && TIMESTAMP.test(row[i]) ? row[i].slice(0, 10) : row[i])));
  return { text: render(head.map((c) => chalk.bold(c)), body, widths), left: columns.filter((_, i) => !shown.includes(i)) };
}

function rank(list: readonly string[] | undefined, column: string): number | undefined {
  const at = list?.indexOf(column) ?? -1;
  return at < 0 ? undefined : at;
}

/** One record on a terminal: keys aligned in a column, each value whole on its line. */
export function verticalTable(pairs: Array<[string, string]>, color: boolean): string {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const keyWidth = Math.max(0, ...pairs.map(([key]) => displayWidth(key)));
  return pairs.map(([key, value]) => `${chalk.bold(key)}${' '.repeat(keyWidth - displayWidth(key) + GAP)}${oneLine(value)}`.trimEnd()).join('\n') + '\n';
}
