// --template: Liquid templates (the liquidjs library: maintained, no code execution, own properties only), loaded
// only when --template is given. A record's fields are the template's variables; forgectl adds the filters
// `timeago` and `color` and the tag `row`, and removes the tags that read files. A name that is neither a field nor
// a filter is an error (exit 2), not an empty text: a typo, or a template of another language (Go's, which gh takes),
// fails loudly. `if`, `unless` and `default` may name a field a record lacks.
import { Liquid, Tag, Value, type Context, type Emitter, type TagToken, type TopLevelToken } from 'liquidjs';
import { UsageError } from '../errors.js';
import { knownFields, knownFieldsHint } from './fields.js';
import { plural } from '../parse.js';
import { visible } from './formats.js';
import type { Io } from './io.js';

const COLOURS: Record<string, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  gray: [90, 39],
};

/** Server text in a template's output: controls (escape sequences) made visible, objects and arrays as JSON. */
function safeText(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return visible(text.replace(/\r/g, '\\r'));
}

/** "3 days ago", "in 2 hours", "just now": a time relative to now; anything that is not a time is shown as it is. */
export function timeAgo(value: unknown, now: Date): string {
  const time = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) return value === null || value === undefined ? '' : String(value);
  const seconds = Math.round((now.getTime() - time.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  const units: Array<[string, number]> = [['year', 31_536_000], ['month', 2_592_000], ['day', 86_400], ['hour', 3_600], ['minute', 60]];
  const [unit, size] = units.find(([, s]) => abs >= s * 0.95) ?? units[units.length - 1];
  const count = Math.max(1, Math.round(abs / size));
  const amount = plural(count, unit);
  return seconds >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** Splits a tag's arguments at the commas outside quotes: `id, name | color: "red", created_at | timeago`. */
function splitArgs(args: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let current = '';
  for (const c of args) {
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** A checked template, ready to render records. */
export class Template {
  /** Cells of the `row` tags rendered so far: printed as aligned columns when the records end. */
  rows: string[][] = [];

  constructor(
    private readonly liquid: Liquid,
    private readonly parsed: TopLevelToken[] | ReturnType<Liquid['parse']>,
  ) {}

  render(record: unknown): string {
    return this.liquid.renderSync(this.parsed as ReturnType<Liquid['parse']>, this.scope(record)) as string;
  }

  /** A record's variables: its fields, or `value` for what is not an object. */
  scope(record: unknown): Record<string, unknown> {
    return record && typeof record === 'object' && !Array.isArray(record) ? (record as Record<string, unknown>) : { value: record };
  }
}

/**
 * Parses a template: a UsageError (exit 2, before any request) with the library's message, line and column when it
 * is wrong. colour: whether `color` paints (a terminal, no NO_COLOR / --no-color).
 */
export function compileTemplate(text: string, options: { color: boolean; now: () => Date }): Template {
  refuseGoTemplate(text);
  const liquid = new Liquid({ strictFilters: true, strictVariables: true, lenientIf: true, ownPropertyOnly: true, outputEscape: safeText, cache: false });
  let template: Template | undefined;
  liquid.registerFilter('timeago', (value: unknown) => timeAgo(value, options.now()));
  liquid.registerFilter('color', {
    // The value is made safe here, then painted: the library does not escape what a raw filter returns.
    handler: (value: unknown, name: unknown) => {
      const codes = COLOURS[String(name)];
      if (!codes) throw new Error(`color: unknown colour "${String(name)}" (one of ${Object.keys(COLOURS).join(', ')})`);
      const text = safeText(value);
      return options.color ? `\x1b[${codes[0]}m${text}\x1b[${codes[1]}m` : text;
    },
    raw: true,
  });
  for (const name of ['include', 'render', 'layout']) {
    liquid.registerTag(
      name,
      class extends Tag {
        constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
          super(token, remain, engine);
          throw new Error(`the ${name} tag is not available: a template cannot read files`);
        }
        *render(): Generator<unknown, void, unknown> {}
      },
    );
  }
  liquid.registerTag(
    'row',
    class extends Tag {
      private readonly cells: Value[];
      constructor(token: TagToken, remain: TopLevelToken[], engine: Liquid) {
        super(token, remain, engine);
        this.cells = splitArgs(token.args).map((arg) => new Value(arg, engine));
        if (!this.cells.length) throw new Error('row needs at least one value: {% row id, name %}');
      }
      *render(context: Context, _emitter: Emitter): Generator<unknown, void, unknown> {
        const cells: string[] = [];
        for (const cell of this.cells) {
          const value = yield cell.value(context, false);
          // A painted cell (`| color`) is already safe; anything else is made safe here.
          cells.push(cell.filters.some((f) => f.name === 'color') ? String(value) : safeText(value));
        }
        template!.rows.push(cells);
      }
    },
  );
  try {
    template = new Template(liquid, liquid.parse(text));
  } catch (error) {
    const message = (error as Error).message;
    throw new UsageError(`--template: ${message}`, message.startsWith('undefined filter') ? FILTERS_HINT : undefined);
  }
  return template;
}

const LIQUID_EXAMPLE = "--template takes Liquid: '{{ id }} {{ name | upcase }} {{ created_at | timeago }}'; a list field: {% for label in labels %}{{ label }} {% endfor %}";
const FILTERS_HINT = "the filters are Liquid's (upcase, truncate: 20, date: \"%Y-%m-%d\", default: \"-\", join: \", \" …), timeago and color: \"red\"";

/**
 * Exit 2 before any request for a template in Go's language (gh's --template): an action such as {{range .}},
 * {{end}} or {{$x := …}}, or a function call {{printf "%v" .id}} / {{timeago .created_at}}, which Liquid would read
 * as an unknown variable, or an expression it ignores the rest of.
 */
function refuseGoTemplate(text: string): void {
  const outside = text.replace(/{%-?\s*raw\s*-?%}[\s\S]*?{%-?\s*endraw\s*-?%}/g, '');
  for (const [tag, inside] of outside.matchAll(/{{-?([^}]*?)-?}}/g)) {
    if (GO_ACTION.test(inside.trim())) throw new UsageError(`--template: ${tag} is Go template syntax, not Liquid`, LIQUID_EXAMPLE);
  }
}

/** What Go's templates have between {{ }} and Liquid's never: an action, a variable, a function and its arguments. */
const GO_ACTION = /^(?:(?:range|with|define|template|block)\s|(?:end|else)$|\$|[A-Za-z_]\w*\s+[."$])/;

/** Visible width: colour codes count nothing. */
// eslint-disable-next-line no-control-regex -- the colour codes this file writes
const width = (text: string): number => [...text.replace(/\x1b\[\d+m/g, '')].length;

/** The rows of `row` tags as aligned columns (two spaces apart), then forgotten. */
function table(template: Template): string {
  const rows = template.rows;
  template.rows = [];
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
  return rows.map((row) => `${row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - width(cell) + 2))).join('')}\n`).join('');
}

/**
 * Prints the template for a single record or for each record of a list as its pages arrive (a text that does not end
 * a line gets a line break). Rows of the `row` tag are printed together, aligned, when the records end.
 */
export async function printTemplate(template: Template, source: { one: unknown } | { pages: AsyncIterable<unknown[]> }, io: Io): Promise<void> {
  const render = (record: unknown): string => {
    let text: string;
    try {
      text = template.render(record);
    } catch (error) {
      const message = (error as Error).message;
      // A name that is not a field of the record: the fields it has are the names to use.
      const fields = message.startsWith('undefined variable') ? knownFields(template.scope(record)) : undefined;
      throw new UsageError(`--template: ${message}`, fields && `${knownFieldsHint(fields)}; {% if name %} and {{ name | default: "-" }} take a field a record may lack`);
    }
    // Nothing but white space (a template of `row` tags): no line.
    return !text.trim() ? '' : text.endsWith('\n') ? text : `${text}\n`;
  };
  if ('one' in source) {
    const text = render(source.one);
    if (text) await io.out(text);
  } else {
    const state = io.state;
    state.records = 0;
    for await (const page of source.pages) {
      let text = '';
      for (const record of page) text += render(record);
      if (text) await io.out(text);
      state.records += page.length;
    }
    state.complete = true;
  }
  if (template.rows.length) await io.out(table(template));
}
