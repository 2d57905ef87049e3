import { ListResult, type ListPage } from '../api/paginate.js';
import { UsageError } from '../errors.js';
import { cellText, checkFields, getPath, isJsonCell, pick, type Row } from './fields.js';
import { csvCell, csvLine, escapeC1, tsvCell, visible, type Format } from './formats.js';
import { OutputClosed, type Io } from './io.js';
import { JsonAnswer, Summarised, TextResult, WrittenResult } from './result.js';
import { toYaml } from './yaml.js';
import type { JqProgram } from './jq.js';
import type { Template } from './template.js';
import type { ColumnPriority } from './table.js';

export interface RenderOptions {
  format: Format;
  fields?: string[];
  /** Default columns of a list in table, TSV and CSV output. */
  columns?: string[];
  /** What of those columns a narrow terminal keeps first (the command's, where the table's defaults are not enough). */
  columnPriority?: ColumnPriority;
  /** The top-level fields the records have as declared: --fields takes them even when a record lacks one. */
  declared?: readonly string[];
  /** --jq: the checked expression, run on each record (on the whole collection with slurp). */
  jq?: JqProgram;
  slurp?: boolean;
  /** --template: a line (or more) for each record. */
  template?: Template;
  /** A sentence after the records sums them up (Summarised): an empty table says nothing of its own. */
  summarised?: boolean;
}

/** Writes what a command returned: records, a list (streamed where the format allows), text or a download. */
export async function render(result: unknown, io: Io, options: RenderOptions): Promise<void> {
  if (result === undefined) return;
  if (result instanceof Summarised) {
    await render(result.rows, io, { ...options, summarised: true });
    return io.note(result.summary);
  }
  if (options.jq || options.template) return renderShaped(result, io, options);
  if (result instanceof JsonAnswer) return render(result.value, io, options);
  if (result instanceof TextResult) {
    const text = result.text.endsWith('\n') || !result.text ? result.text : `${result.text}\n`;
    return io.out(io.stdoutIsTTY && !result.painted ? visible(text) : text);
  }
  if (result instanceof WrittenResult) {
    const record = await result.write(io);
    return record ? renderRecord(record as Row, io, options) : undefined;
  }
  if (result instanceof ListResult || Array.isArray(result) || isAsyncIterable(result)) {
    const columns = (result instanceof ListResult && result.columns) || options.columns;
    await renderList(result as AsyncIterable<Row> | Row[], io, { ...options, columns });
    if (result instanceof ListResult && result.notice) io.note(result.notice);
    return;
  }
  if (result === null || typeof result !== 'object') return renderScalar(result, io, options.format);
  return renderRecord(result as Row, io, options);
}

/**
 * --jq and --template: records go through the expression or the template (loaded only then), a list's page by page as
 * they arrive, or, with --slurp, gathered first and given to the expression once. Text and files are not records:
 * refused before anything is printed.
 */
async function renderShaped(result: unknown, io: Io, options: RenderOptions): Promise<void> {
  const flag = options.jq ? '--jq' : '--template';
  if (result instanceof WrittenResult) throw new UsageError(`${flag} works on records; this command writes a file`);
  if (result instanceof TextResult) {
    throw new UsageError(`${flag} works on records; this answer is text, not JSON`, `leave out ${flag} to see the text as it came`);
  }
  if (options.jq && result instanceof JsonAnswer) {
    const { printJq, answerSource } = await import('./jq.js');
    return printJq(options.jq, answerSource(result, Boolean(options.slurp)), io);
  }
  const value = result instanceof JsonAnswer ? result.value : result;
  const isList = value instanceof ListResult || Array.isArray(value) || isAsyncIterable(value);
  const pages = isList ? recordsOf(value as AsyncIterable<Row> | Row[]) : undefined;
  if (options.template) {
    const { printTemplate } = await import('./template.js');
    await printTemplate(options.template, pages ? { pages } : { one: value }, io);
  } else if (options.slurp) {
    const all: unknown[] = [];
    if (pages) for await (const page of pages) all.push(...page);
    const { printJq } = await import('./jq.js');
    // A single record is a collection of one, as jq --slurp makes an array of its one input.
    await printJq(options.jq!, { one: pages ? all : [value] }, io);
  } else {
    const { printJq } = await import('./jq.js');
    await printJq(options.jq!, pages ? { pages } : { one: value }, io);
  }
  if (value instanceof ListResult && value.notice) io.note(value.notice);
}

/** A value that is not a record (null, a number, a string, true): JSON (YAML) of it, or its text in a table or CSV. */
async function renderScalar(value: unknown, io: Io, format: Format): Promise<void> {
  if (format === 'json' || format === 'ndjson') return io.out(onStdout(io, `${JSON.stringify(value)}\n`, 'json'));
  if (format === 'yaml') return io.out(onStdout(io, await toYaml(value), 'yaml'));
  const text = value === null ? 'null' : String(value);
  return io.out(`${format === 'csv' ? csvCell(text) : visible(text)}\n`);
}

/** JSON or YAML for stdout: on a terminal with DEL and C1 controls escaped (the same document), in a pipe as it is. */
const onStdout = (io: Io, text: string, format: 'json' | 'yaml'): string => (io.stdoutIsTTY ? escapeC1(text, format) : text);

/** Records that arrive over time (a fleet run's rows, in order). */
const isAsyncIterable = (value: unknown): value is AsyncIterable<Row> => typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** Whether a value is a record of its own (an object, or a list of them): one long line of JSON in a record view. */
const isNested = (value: unknown): boolean => typeof value === 'object' && value !== null && (!Array.isArray(value) || value.some((item) => typeof item === 'object' && item !== null));

/**
 * A record's keys for its key/value view: its own values first, then those it has not (null), then nested records
 * (a tag's commit), each in the service's order, so that the line-long JSON of a nested record or an empty line does
 * not come before the record's name.
 */
function scalarsFirst(record: Row): string[] {
  const keys = Object.keys(record);
  const rank = (key: string) => (record[key] === null ? 1 : isNested(record[key]) ? 2 : 0);
  return [0, 1, 2].flatMap((tier) => keys.filter((key) => rank(key) === tier));
}

async function renderRecord(record: Row, io: Io, { format, fields, declared }: RenderOptions): Promise<void> {
  if (fields) checkFields(fields, record, declared);
  const shown = fields ? pick(record, fields) : record;
  switch (format) {
    case 'json':
      return io.out(onStdout(io, `${JSON.stringify(shown, null, 2)}\n`, 'json'));
    case 'ndjson':
      return io.out(onStdout(io, `${JSON.stringify(shown)}\n`, 'json'));
    case 'yaml':
      return io.out(onStdout(io, await toYaml(shown), 'yaml'));
    case 'csv': {
      const columns = fields ?? Object.keys(record);
      return io.out(csvLine(columns) + csvLine(columns.map((c) => cellText(getPath(record, c)))));
    }
    case 'table': {
      const keys = fields ?? scalarsFirst(record);
      if (!io.stdoutIsTTY) {
        return io.out(keys.map((k) => tsvRow([k, getPath(record, k)])).join(''));
      }
      const { verticalTable } = await import('./table.js');
      return io.out(verticalTable(keys.map((k) => [k, cellText(getPath(record, k))]), io.options.color));
    }
  }
}

async function renderList(items: AsyncIterable<Row> | Row[], io: Io, options: RenderOptions): Promise<void> {
  const list = new ListWriter(io, options);
  if (options.format === 'table' && io.stdoutIsTTY) return terminalTable(items, io, list, options);
  if (options.format === 'yaml') return yamlList(items, io, list);
  return streamList(items, io, list, options);
}

/** How a list's records are written: its columns (known from the first record), each record's fields, the writes. */
class ListWriter {
  columns: string[] = [];
  /** A command that changes things goes on writing nothing once the reader is gone (below). */
  private discarding = false;

  constructor(
    private readonly io: Io,
    private readonly options: RenderOptions,
  ) {}

  /** The first record: --fields checked against it, and the columns (--fields, the command's, or its plain values). */
  start(record: Row): void {
    const { fields, columns, declared } = this.options;
    if (fields) checkFields(fields, record, declared);
    this.columns = fields ?? columns ?? Object.keys(record).filter((k) => record[k] === null || typeof record[k] !== 'object');
  }

  shape(record: Row): Row {
    return this.options.fields ? pick(record, this.options.fields) : record;
  }

  // A command that changes things (apply, a fleet's commits) carries on when the reader goes away (`| head`),
  // writing nothing more: stopping would leave its work half done, with exit 0. A list that only reads stops.
  async out(text: string | Uint8Array): Promise<void> {
    if (this.discarding) return;
    try {
      await this.io.out(text);
    } catch (error) {
      if (!(error instanceof OutputClosed) || !this.io.state.changesInFlight.sent) throw error;
      this.discarding = true;
    }
  }
}

/** A table at a terminal: every record first (the widths depend on them all), columns dropped to fit unless --fields names them. */
async function terminalTable(items: AsyncIterable<Row> | Row[], io: Io, list: ListWriter, { fields, columnPriority, summarised }: RenderOptions): Promise<void> {
  const rows: Row[] = [];
  for await (const record of items) rows.push(record);
  if (!rows.length) return summarised ? undefined : io.note('no results');
  list.start(rows[0]);
  const cols = list.columns;
  const { listTable } = await import('./table.js');
  const width = io.streams.stdout.columns || 80;
  const table = listTable(cols, rows.map((r) => cols.map((c) => cellText(getPath(r, c)))), { color: io.options.color, width, mayDrop: !fields, priority: columnPriority });
  // The layout of a long list takes a while without a turn of the event loop: a Ctrl-C pressed meanwhile is heard
  // here, before the table is written, and not after the run has ended.
  await new Promise((resolve) => setImmediate(resolve));
  await list.out(table.text);
  if (table.left.length) io.note(`columns left out to fit the terminal: ${table.left.join(', ')} (--fields picks them)`);
}

/** YAML: one document of every record. */
async function yamlList(items: AsyncIterable<Row> | Row[], io: Io, list: ListWriter): Promise<void> {
  const rows: Row[] = [];
  for await (const record of items) {
    if (!rows.length) list.start(record);
    rows.push(list.shape(record));
  }
  return list.out(rows.length ? onStdout(io, await toYaml(rows), 'yaml') : '[]\n');
}

/**
 * Streaming formats: records are written as pages arrive, one write a page, counted so that a run cut short can
 * say so. JSON and NDJSON are the parsed records written again, to a terminal, a pipe or a file alike (a terminal
 * gets DEL and C1 controls escaped, the same values). NDJSON off a terminal takes a page's own bytes where they are
 * those lines already (ListResult.written): the same output, for a fraction of the CPU.
 */
async function streamList(items: AsyncIterable<Row> | Row[], io: Io, list: ListWriter, { format, fields, columns }: RenderOptions): Promise<void> {
  const state = io.state;
  let first = true;
  state.records = 0;
  const asLines = format === 'ndjson' && !fields && !io.stdoutIsTTY;
  for await (const page of pagesOf(items, asLines)) {
    if (!page.count) continue;
    if (first) list.start(page.records()[0]);
    const lines = asLines ? page.lines?.() : undefined;
    if (lines) await list.out(lines);
    else {
      const text = writeRecords(page.records(), format, first, (record) => list.shape(record), list.columns);
      await list.out(format === 'json' || format === 'ndjson' ? onStdout(io, text, 'json') : text);
    }
    if (format === 'json') state.closer = '\n]\n';
    state.records += page.count;
    first = false;
  }
  state.closer = '';
  state.complete = true;
  if (format === 'json') await list.out(first ? '[]\n' : '\n]\n');
  if (format === 'csv' && first && (fields ?? columns)) await list.out(csvLine(fields ?? columns ?? []));
}

/**
 * A page of records in a streaming format. JSON continues the array the first page opened: the page is written as
 * JSON.stringify writes an array, less its brackets, so that the pages together are JSON.stringify(list, null, 2).
 */
function writeRecords(page: Row[], format: Format, first: boolean, shape: (record: Row) => Row, cols: string[]): string {
  if (format === 'json') {
    const array = JSON.stringify(page.map(shape), null, 2);
    return (first ? '[\n' : ',\n') + array.slice(2, -2);
  }
  let text = '';
  for (const record of page) {
    switch (format) {
      case 'ndjson':
        text += `${JSON.stringify(shape(record))}\n`;
        break;
      case 'csv':
        text += (first ? csvLine(cols) : '') + csvLine(cols.map((c) => cellText(getPath(record, c))));
        break;
      default:
        text += tsvRow(cols.map((c) => getPath(record, c)));
    }
    first = false;
  }
  return text;
}

/**
 * A tab-separated line of values: a value shown as JSON is its compact JSON as it is (its escapes are the one level
 * of escaping a cell has, so that a copied cell is the value), any other value's text escaped.
 */
function tsvRow(values: unknown[]): string {
  return `${values.map((value) => (isJsonCell(value) ? cellText(value) : tsvCell(cellText(value)))).join('\t')}\n`;
}

/**
 * A list as pages: a ListResult page by page (`asLines`: see ListResult.written), an array as one page, any other
 * stream record by record.
 */
async function* pagesOf(items: AsyncIterable<Row> | Row[], asLines: boolean): AsyncGenerator<ListPage<Row>> {
  if (Array.isArray(items)) yield { count: items.length, records: () => items };
  else if (items instanceof ListResult) yield* (items as ListResult<Row>).written(asLines);
  else for await (const record of items) yield { count: 1, records: () => [record] };
}

/** A list's records page by page. */
async function* recordsOf(items: AsyncIterable<Row> | Row[]): AsyncGenerator<Row[]> {
  for await (const page of pagesOf(items, false)) yield page.records();
}
