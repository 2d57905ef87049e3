import { isUtf8 } from 'node:buffer';

// The text of a list's records as JSON.stringify writes them, matched without parsing it. A list's records share
// their keys, in the same order, and the kinds of their values: a regular expression made from the first record
// (its keys as they are, each value by the kind it has there) matches a page of records written that way in one pass
// of the regular expression engine, several times faster than JSON.parse and JSON.stringify, which the NDJSON of a
// long list would otherwise pay for every page. A page it does not match (other keys, a value of another kind, white
// space, an escape or a number JSON.stringify writes otherwise, a key twice) is parsed and written again: the same
// lines either way.

/** A string as JSON.stringify writes it: raw characters but the controls, `"` and `\`; their short escapes, else \u00xx. */
const STRING = String.raw`"[^"\\\x00-\x1f]*(?:\\(?:["\\bfnrt]|u00(?:0[0-7bef]|1[0-9a-f]))[^"\\\x00-\x1f]*)*"`;
/** An integer of up to 15 digits (a double, written back digit for digit); not -0, no fraction, no exponent. */
const INTEGER = String.raw`(?:0|-?[1-9]\d{0,14})(?![\d.eE])`;
const SCALAR = `(?:${STRING}|${INTEGER}|true|false|null)`;
const SCALARS = String.raw`\[(?:${SCALAR}(?:,${SCALAR})*)?\]`;
/** Deeper than this, or longer, a record gives no shape: its list is parsed page by page. */
const MAX_DEPTH = 8;
const MAX_PATTERN = 100_000;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * The shape of a list's records, from its first: `recordEnds` finds the records of a page whose text is what
 * JSON.stringify writes for them, shaped as the first one is.
 */
export class RecordShape {
  private readonly record: RegExp;

  private constructor(pattern: string) {
    this.record = new RegExp(pattern, 'y');
  }

  /** The shape of records like this one; undefined for a value that is not an object, or one too deep or large. */
  static of(record: unknown): RecordShape | undefined {
    if (!isObject(record)) return undefined;
    const pattern = objectPattern(record, 1);
    return pattern && pattern.length <= MAX_PATTERN ? new RecordShape(pattern) : undefined;
  }

  /**
   * Where each record of the page ends (the offset of the `,` or `]` after it), when the page is a JSON array of
   * records of this shape written as JSON.stringify writes them, in UTF-8: then JSON.stringify(JSON.parse(page)) is
   * the page byte for byte. Undefined otherwise, and for an empty page.
   *
   * Why: every key is matched as it is in the first record, in the same order, once, so that JSON.parse creates each
   * object's keys in that order (the first record's keys came from JSON.parse, array indices first as it puts them)
   * and JSON.stringify writes them so; every string, integer and literal is matched only as JSON.stringify writes it;
   * nothing else is matched, not even a space. The bytes are read as Latin-1 (one character a byte): in valid UTF-8
   * every byte of a character past ASCII is above 0x7f, which only the inside of a string matches, as it must.
   */
  recordEnds(page: Buffer): number[] | undefined {
    if (page.length < 2 || page[0] !== OPEN_BRACKET || !isUtf8(page)) return undefined;
    const text = page.toString('latin1');
    const ends: number[] = [];
    const record = this.record;
    record.lastIndex = 1;
    for (;;) {
      if (!record.test(text)) return undefined;
      const end = record.lastIndex;
      ends.push(end);
      const next = text.charCodeAt(end);
      if (next === CLOSE_BRACKET) return end === text.length - 1 ? ends : undefined;
      if (next !== COMMA) return undefined;
      record.lastIndex = end + 1;
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `{"key":value,…}` with the object's keys in order, each value by its kind; undefined past MAX_DEPTH. */
function objectPattern(object: Record<string, unknown>, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  let pattern = String.raw`\{`;
  let first = true;
  for (const key of Object.keys(object)) {
    const value = valuePattern(object[key], depth);
    if (value === undefined) return undefined;
    // The key as JSON.stringify writes it, in UTF-8 read as Latin-1 (as the page is read), taken literally.
    const name = Buffer.from(JSON.stringify(key)).toString('latin1').replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
    pattern += `${first ? '' : ','}${name}:${value}`;
    first = false;
  }
  return `${pattern}\\}`;
}

/**
 * A value of the kind this one is, or null (a value another record may not have): a string, an integer, a literal,
 * an object shaped as this one, an array of objects shaped as this one's first, or of scalars. A null (or an empty
 * array) says nothing of the kind: any scalar, or array of scalars.
 */
function valuePattern(value: unknown, depth: number): string | undefined {
  if (typeof value === 'string') return `(?:${STRING}|null)`;
  if (typeof value === 'number') return `(?:${INTEGER}|null)`;
  if (typeof value === 'boolean') return '(?:true|false|null)';
  if (isObject(value)) {
    const object = objectPattern(value, depth + 1);
    return object && `(?:${object}|null)`;
  }
  if (Array.isArray(value) && isObject(value[0])) {
    const element = objectPattern(value[0], depth + 1);
    // `[`, then records each followed by `,` and another or by the `]` (the element's pattern once: it may be long).
    return element && String.raw`(?:\[(?:${element}(?:,(?=\{)|(?=\])))*\]|null)`;
  }
  return `(?:${SCALAR}|${SCALARS})`;
}
