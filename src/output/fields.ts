import { UsageError } from '../errors.js';
import { closestName, pluralNoun } from '../parse.js';
import { escapeC1 } from './formats.js';

export type Row = Record<string, unknown>;

/** A key of a dotted path that indexes an array ("create_access_levels.0.access_level"). */
const INDEX = /^\d+$/;

/** A record's own property: never its prototype's (`constructor`, `toString`), and `__proto__` as a key like others. */
function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Row)[key] : undefined;
}

/** Sets a property as a key like any other, also one named `__proto__` (an assignment would set the prototype). */
function setOwn(target: Row, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Value at a dotted path: "licensee.Name", "create_access_levels.0.access_level". Through an array a key that is not
 * an index gives each element's value, as jq's `.[].access_level` does: "push_access_levels.access_level".
 */
export function getPath(record: unknown, path: string): unknown {
  return valueAt(record, path.split('.'));
}

function valueAt(record: unknown, keys: string[]): unknown {
  let value = record;
  for (const [i, key] of keys.entries()) {
    if (Array.isArray(value) && !INDEX.test(key)) return value.map((element) => valueAt(element, keys.slice(i)) ?? null);
    value = own(value, key);
    if (value === undefined) return undefined;
  }
  return value;
}

/** Dotted paths of a record, two levels deep (into the objects of an array too): what --fields accepts. */
export function knownFields(record: unknown, prefix = '', depth = 0): string[] {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.push(path);
    const inner = Array.isArray(value) ? value.find((element) => element && typeof element === 'object') : value;
    if (depth < 1 && inner && typeof inner === 'object' && !Array.isArray(inner)) out.push(...knownFields(inner, path, depth + 1));
  }
  return out;
}

export function parseFields(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const fields = value.split(',').map((f) => f.trim()).filter(Boolean);
  if (!fields.length) throw new UsageError('--fields needs at least one field name');
  return fields;
}

/**
 * Whether --fields may ask for a path, judged from one record: the record has it, or a part of the path is null in
 * it (`artifacts_file.size` where this job has `artifacts_file: null`: the next record may have it; null is shown),
 * or, through an array, an element has it (or the array is empty).
 */
function pathFits(record: unknown, keys: string[]): boolean {
  let value = record;
  for (const [i, key] of keys.entries()) {
    if (value === null) return true;
    if (Array.isArray(value) && !INDEX.test(key)) return !value.length || value.some((element) => pathFits(element, keys.slice(i)));
    if (value === undefined || typeof value !== 'object' || !Object.hasOwn(value, key)) return false;
    value = (value as Row)[key];
  }
  return true;
}

/**
 * Exit 2 listing the known fields when a requested field does not fit the record, unless its first name is declared
 * for the command's records (`declared`: top-level names) and this record lacks it (a record may: null is shown).
 */
export function checkFields(fields: string[], sample: unknown, declared: readonly string[] = []): void {
  const unknown = fields.filter((field) => {
    const keys = field.split('.');
    return !pathFits(sample, keys) && !(declared.includes(keys[0]) && own(sample, keys[0]) == null);
  });
  if (unknown.length) {
    const known = [...new Set([...declared, ...knownFields(sample)])];
    const guesses = unknown.map((field) => (field.length >= 3 ? closestName(field, known) : undefined)).filter(Boolean);
    throw new UsageError(`unknown ${pluralNoun(unknown.length, 'field')}: ${unknown.join(', ')}${guesses.length ? ` (did you mean ${guesses.join(', ')}?)` : ''}`, knownFieldsHint(known));
  }
}

/** Names shown in the hint of an unknown field: a record of a hundred fields is summed up, not listed. */
const HINT_FIELDS = 15;

/** The known fields, all of them when few; else how many, the first top-level ones, and where to see the rest. */
export function knownFieldsHint(known: string[]): string {
  if (known.length <= HINT_FIELDS) return `known fields: ${known.join(', ')}`;
  const first = known.filter((field) => !field.includes('.')).slice(0, HINT_FIELDS);
  return `${known.length} known fields, among them ${first.join(', ')} …; -o json shows them all`;
}

/** A record reduced to the given dotted paths, nesting kept (an array's elements each reduced, as getPath reads them). */
export function pick(record: unknown, fields: string[]): Row {
  const out: Row = {};
  for (const field of fields) pickInto(out, record, field.split('.'));
  return out;
}

/** Copies the value at `keys` of `value` into `into`, making the objects (and arrays) on the way as they are there. */
function pickInto(into: Row, value: unknown, keys: string[]): void {
  const [key, ...rest] = keys;
  const next = own(value, key);
  if (!rest.length) return setOwn(into, key, next ?? null);
  const made = own(into, key);
  if (Array.isArray(next) && !INDEX.test(rest[0])) {
    const elements = Array.isArray(made) ? (made as Row[]) : next.map((): Row => ({}));
    setOwn(into, key, elements);
    next.forEach((element, i) => pickInto(elements[i], element, rest));
    return;
  }
  const child = made && typeof made === 'object' && !Array.isArray(made) ? (made as Row) : {};
  setOwn(into, key, child);
  pickInto(child, next, rest);
}

/** Whether a cell shows a value as JSON: an object, or an array that holds one. */
export function isJsonCell(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !(Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'));
}

/**
 * Text for one cell: scalars as is, arrays of scalars comma-joined, objects as compact JSON (DEL and C1 controls,
 * which JSON leaves raw, as its \u escapes), null as empty.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isJsonCell(value)) return escapeC1(JSON.stringify(value), 'json');
  if (typeof value === 'string') return value;
  return Array.isArray(value) ? value.join(',') : String(value);
}
