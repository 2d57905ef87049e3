import { UsageError } from '../errors.js';
import { closestName, pluralNoun } from '../parse.js';

export type Row = Record<string, unknown>;

/** Value at a dotted path: "licensee.Name", "create_access_levels.0.access_level". */
export function getPath(record: unknown, path: string): unknown {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Dotted paths of a record, two levels deep: what --fields accepts. */
export function knownFields(record: unknown, prefix = '', depth = 0): string[] {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    out.push(path);
    if (depth < 1 && value && typeof value === 'object' && !Array.isArray(value)) out.push(...knownFields(value, path, depth + 1));
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
 * it (`artifacts_file.size` where this job has `artifacts_file: null`: the next record may have it; null is shown).
 */
function pathFits(record: unknown, path: string): boolean {
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null) return true;
    if (value === undefined || typeof value !== 'object' || !(key in (value as object))) return false;
    value = (value as Record<string, unknown>)[key];
  }
  return true;
}

/**
 * Exit 2 listing the known fields when a requested field is neither declared for the command's records (`declared`:
 * top-level names; a record may lack one, which then shows as null) nor fits the record.
 */
export function checkFields(fields: string[], sample: unknown, declared: readonly string[] = []): void {
  const unknown = fields.filter((field) => !declared.includes(field.split('.')[0]) && !pathFits(sample, field));
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

/** A record reduced to the given dotted paths, nesting kept. */
export function pick(record: unknown, fields: string[]): Row {
  const out: Row = {};
  for (const field of fields) {
    const keys = field.split('.');
    let target = out;
    keys.slice(0, -1).forEach((key) => {
      target[key] = (target[key] as Row | undefined) ?? {};
      target = target[key] as Row;
    });
    target[keys[keys.length - 1]] = getPath(record, field) ?? null;
  }
  return out;
}

/** Text for one cell: scalars as is, arrays of scalars comma-joined, objects as JSON, null as empty. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return value.join(',');
  return JSON.stringify(value);
}
