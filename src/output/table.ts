import { Chalk } from 'chalk';
import Table from 'cli-table3';

const MAX_CELL = 80;

function clip(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  return oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}

/** A list as a terminal table: header row, coloured when colour is on. */
export function listTable(columns: string[], rows: string[][], color: boolean): string {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const table = new Table({ head: columns.map((c) => chalk.bold.cyan(c)), style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map(clip));
  return `${table.toString()}\n`;
}

/** One record as a two-column key/value table. */
export function verticalTable(pairs: Array<[string, string]>, color: boolean): string {
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const table = new Table({ style: { head: [], border: [] }, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } });
  for (const [key, value] of pairs) table.push({ [chalk.bold(key)]: clip(value) });
  return `${table.toString()}\n`;
}
