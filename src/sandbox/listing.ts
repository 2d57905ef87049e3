import { errors, type SandboxRequest } from './http.js';
import { VISIBILITIES, type Visibility } from './model.js';

/** Ordering and the common filters of the project and group lists. */

export interface Ordering {
  orderBy: string;
  sort: 'asc' | 'desc';
}

/** `order_by` and `sort` of a list request, checked against what the endpoint allows (400 as Grape answers). */
export function ordering(req: SandboxRequest, allowed: readonly string[], defaults: Ordering): Ordering {
  const orderBy = req.query.order_by === undefined || req.query.order_by === '' ? defaults.orderBy : String(req.query.order_by);
  const sort = req.query.sort === undefined || req.query.sort === '' ? defaults.sort : String(req.query.sort);
  if (!allowed.includes(orderBy)) throw errors.invalid('order_by');
  if (sort !== 'asc' && sort !== 'desc') throw errors.invalid('sort');
  return { orderBy, sort };
}

/** One collator for every comparison: `localeCompare(x, 'en')` builds a new one per call, which is slow. */
const collator = new Intl.Collator('en');

/** Sorts by a key, ties broken by id in the same direction (so pages never overlap). */
export function sortRecords<T extends { id: number }>(list: readonly T[], key: (record: T) => string | number | null | undefined, sort: 'asc' | 'desc'): T[] {
  return [...list].sort(recordOrder(key, sort));
}

/** The order sortRecords() sorts in: by the key, then by id, both in the direction of `sort`. */
export function recordOrder<T extends { id: number }>(key: (record: T) => string | number | null | undefined, sort: 'asc' | 'desc'): (a: T, b: T) => number {
  const sign = sort === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = key(a) ?? '';
    const y = key(b) ?? '';
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
    return sign * (order || a.id - b.id);
  };
}

/** An array parameter (`skip_groups[]=1&skip_groups[]=2`, or `1,2`) as integers. */
export function intList(value: unknown, name: string): number[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const items = Array.isArray(value) ? value : String(value).split(',');
  return items.map((item) => {
    const n = Number(item);
    if (!Number.isInteger(n)) throw errors.invalid(name);
    return n;
  });
}

/** A date-time parameter, 400 when it is not one (`invalid`: "x does not have a valid value", as Grape words it). */
export function timeParam(req: SandboxRequest, name: string, invalid = errors.invalid): number | undefined {
  const value = req.query[name];
  if (value === undefined || value === '') return undefined;
  const time = Date.parse(String(value));
  if (Number.isNaN(time)) throw invalid(name);
  return time;
}

/**
 * The `<name>_after` and `<name>_before` filters of a list (created_after …), each bounding the record's time that
 * `times` gives for the name, both ends excluded; a record without that time is left out. 400 for a bound that is
 * no date-time, checked in the order given (each name's `_after`, then its `_before`).
 */
export function withinTimes<T>(req: SandboxRequest, list: T[], times: Record<string, (record: T) => string | null>): T[] {
  for (const [name, timeOf] of Object.entries(times)) {
    for (const [end, sign] of [['after', 1], ['before', -1]] as const) {
      const bound = timeParam(req, `${name}_${end}`);
      if (bound === undefined) continue;
      list = list.filter((record) => {
        const at = timeOf(record);
        return at !== null && Math.sign(Date.parse(at) - bound) === sign;
      });
    }
  }
  return list;
}

/** Case-insensitive substring match of any of the values. */
export function matches(search: unknown, ...values: Array<string | null | undefined>): boolean {
  const needle = String(search).toLowerCase();
  return values.some((value) => value !== null && value !== undefined && value.toLowerCase().includes(needle));
}

/** A name and a path as the service accepts them (Rails' parameterize for a path derived from a name). */
export const PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;

export function pathProblem(path: string): string | undefined {
  if (!PATH_FORMAT.test(path) || /\.(git|atom)$/.test(path) || path.endsWith('.') || path.includes('..')) {
    return "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
  }
  return undefined;
}

export function parameterize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/-{2,}/g, '-').replace(/^-|-$/g, '');
}

/** How Rails shows validation errors inside the "Failed to save …" messages: {:path=>["has already been taken"]}. */
export function rubyErrors(problems: Record<string, string[]>): string {
  return `{${Object.entries(problems).map(([key, list]) => `:${key}=>[${list.map((m) => JSON.stringify(m)).join(', ')}]`).join(', ')}}`;
}

/** The visibility a create or update of a group or project asks for (undefined when not given); 400 for any other word. */
export function visibilityFrom(req: SandboxRequest): Visibility | undefined {
  const value = req.input.visibility;
  if (value === undefined || value === null || value === '') return undefined;
  if (!VISIBILITIES.includes(value as Visibility)) throw errors.invalid('visibility');
  return value as Visibility;
}

/** The name, path and visibility an update of a group or project asks for, each as it is when not given. */
export function renameDraft(req: SandboxRequest, current: { name: string; path: string; visibility: Visibility }): { name: string; path: string; visibility: Visibility } {
  return {
    name: req.input.name === undefined ? current.name : String(req.input.name),
    path: req.input.path === undefined ? current.path : String(req.input.path),
    visibility: visibilityFrom(req) ?? current.visibility,
  };
}
