import { UsageError } from './errors.js';

/**
 * Parsers of values (numbers, dates, durations, choices, access levels, lists): of options, and of the fields of
 * declared resources (src/api/fields.ts), which every layer reads. Each throws UsageError (exit 2), so bad input
 * never reaches the server. A leaf module: it imports only the errors.
 */

/**
 * What a parser accepts, as JSON Schema keywords (the agent interface describes options with them). Parsers that
 * know it carry it; others take strings.
 */
export interface ValueSchema {
  type: 'integer' | 'number' | 'string' | 'boolean' | 'array';
  minimum?: number;
  maximum?: number;
  format?: 'date' | 'date-time';
  description?: string;
}

/** The JSON Schema of the values a parser accepts, where it says (see ValueSchema). */
export function schemaOf(parse: unknown): ValueSchema | undefined {
  return (parse as { schema?: ValueSchema } | undefined)?.schema;
}

const withSchema = <F>(parse: F, schema: ValueSchema): F & { schema: ValueSchema } => Object.assign(parse as object, { schema }) as F & { schema: ValueSchema };

export function parseInteger(name: string, min = -Infinity, max = Infinity) {
  const bounds = { ...(Number.isFinite(min) ? { minimum: min } : {}), ...(Number.isFinite(max) ? { maximum: max } : {}) };
  return withSchema((value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`${name} must be a whole number, got "${value}"`);
    const n = Number(value);
    if (n < min || n > max) {
      const range = max === Infinity ? `at least ${min}` : min === -Infinity ? `at most ${max}` : `between ${min} and ${max}`;
      throw new UsageError(`${name} must be ${range}, got ${n}`);
    }
    return n;
  }, { type: 'integer', ...bounds });
}

/** A rate: `600` (requests a minute) or `100/10` (per 10 seconds). */
export function parseRateLimit(name: string) {
  return (value: string): { limit: number; periodSeconds: number } => {
    const match = /^(\d+)(?:\/(\d+)s?)?$/.exec(value.trim());
    if (!match || Number(match[1]) < 1 || (match[2] !== undefined && Number(match[2]) < 1)) {
      throw new UsageError(`${name} takes requests per minute (600) or per period in seconds (100/10), got "${value}"`);
    }
    return { limit: Number(match[1]), periodSeconds: match[2] === undefined ? 60 : Number(match[2]) };
  };
}

export function parseNumber(name: string) {
  return withSchema((value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${name} must be a number, got "${value}"`);
    return n;
  }, { type: 'number' });
}

/** A calendar date YYYY-MM-DD that exists. */
export function parseDate(name: string) {
  return withSchema((value: string): string => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
    const date = match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3])) : undefined;
    if (!match || !date || date.getUTCMonth() !== +match[2] - 1 || date.getUTCDate() !== +match[3]) {
      throw new UsageError(`${name} must be a date as YYYY-MM-DD, got "${value}"`);
    }
    return value;
  }, { type: 'string', format: 'date' });
}

/**
 * A date (YYYY-MM-DD, or the day of a date-time) that is today or later: the service refuses a past expiry, and a
 * key or membership that ends before it starts is a mistake. Checked before anything is sent.
 */
export function checkNotPast(flag: string, date: string, now: Date): string {
  const today = now.toISOString().slice(0, 10);
  if (date.slice(0, 10) < today) throw new UsageError(`${flag} ${date} is in the past`, `give today (${today}) or a later day`);
  return date;
}

/** An ISO 8601 date-time (or date). */
export function parseDateTime(name: string) {
  return withSchema((value: string): string => {
    if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new UsageError(`${name} must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got "${value}"`);
    }
    return value;
  }, { type: 'string', format: 'date-time' });
}

const DURATION_UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** A duration such as 30d, 12h, 2w; returns milliseconds. */
export function parseDuration(name: string) {
  return withSchema((value: string): number => {
    const match = /^(\d+)\s*([hdw])$/.exec(value.trim());
    if (!match) throw new UsageError(`${name} must be a duration such as 30d, 12h or 2w, got "${value}"`);
    return Number(match[1]) * DURATION_UNITS[match[2]];
  }, { type: 'string', description: 'a duration such as 30d, 12h or 2w' });
}

/**
 * A moment given as a duration back from now (24h, 7d, 2w) or as a date or date-time: `--since 7d`, `--until
 * 2026-01-31`. Returns it as an ISO time.
 */
export function parseMoment(flag: string, value: string, now: Date): string {
  if (/^\d+\s*[hdw]$/.test(value.trim())) return new Date(now.getTime() - parseDuration(flag)(value)).toISOString();
  try {
    return new Date(Date.parse(parseDateTime(flag)(value))).toISOString();
  } catch {
    throw new UsageError(`${flag} must be a duration such as 24h, 2d or 1w, or a date-time such as 2026-01-31T12:00:00Z, got "${value}"`);
  }
}

/**
 * A parser that also names the values it accepts (shell completion offers them; the agent interface lists them):
 * one of them, or with `list` several, comma-separated.
 */
export type ChoiceParser<T> = ((value: string) => T) & { choices: readonly string[]; list?: boolean };

/** The values a parser accepts, when it names them (parseChoice, parseAccessLevel, parseBoolean, withChoices). */
export function choicesOf(parse: unknown): readonly string[] | undefined {
  return (parse as Partial<ChoiceParser<unknown>> | undefined)?.choices;
}

/** Whether a parser that names its values takes several of them, comma-separated. */
export function takesList(parse: unknown): boolean {
  return (parse as Partial<ChoiceParser<unknown>> | undefined)?.list === true;
}

/**
 * A parser that accepts only these values (or, with list, several of them comma-separated), naming them: a new
 * function (a shared parser is never changed), keeping what the parser says of its JSON Schema.
 */
export function withChoices<A extends unknown[], R>(parse: (...args: A) => R, choices: readonly string[], list = false): ((...args: A) => R) & { choices: readonly string[]; list?: boolean } {
  const named = (...args: A): R => parse(...args);
  return Object.assign(named, { choices, ...(list ? { list } : {}), ...(schemaOf(parse) ? { schema: schemaOf(parse) } : {}) });
}

export function parseChoice<T extends string>(name: string, choices: readonly T[]): ChoiceParser<T> {
  const parse = (value: string): T => {
    const found = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (!found) throw new UsageError(`${name} must be one of ${choices.join(', ')}; got "${value}"`, meantChoice(value, choices));
    return found;
  };
  return Object.assign(parse, { choices });
}

export const parseList = withSchema((value: string, previous?: string[]): string[] => {
  const items = value.split(',').map((v) => v.trim()).filter(Boolean);
  return [...(previous ?? []), ...items];
}, { type: 'array' });

/** Several of these values, comma-separated (the option repeatable too); an unknown one is refused, naming the choices. */
export function parseChoiceList<T extends string>(flag: string, choices: readonly T[]) {
  const parse = (value: string, previous?: T[]): T[] => {
    const items = parseList(value, previous) as T[];
    const unknown = items.filter((item) => !choices.includes(item));
    if (unknown.length) throw new UsageError(`${flag} ${unknown.join(',')}: unknown; choose from ${choices.join(', ')}`);
    return items;
  };
  // A list as parseList's is (an array of the choices to an agent's tool), not one comma-separated word.
  return withChoices(withSchema(parse, schemaOf(parseList)!), choices, true);
}

/** A repeatable option: each use adds one value. */
export const collect = withSchema((value: string, previous?: string[]): string[] => [...(previous ?? []), value], { type: 'array' });

/** key=value, for repeatable options; returns the pairs collected so far. */
export function parseKeyValue(name: string) {
  return withSchema((value: string, previous?: Array<[string, string]>): Array<[string, string]> => {
    const index = value.indexOf('=');
    if (index <= 0) throw new UsageError(`${name} takes key=value, got "${value}"`);
    return [...(previous ?? []), [value.slice(0, index), value.slice(index + 1)]];
  }, { type: 'array', description: 'key=value pairs' });
}

export function parseBoolean(name: string): ChoiceParser<boolean> {
  const parse = (value: string): boolean => {
    const v = value.toLowerCase();
    if (['true', 'yes', '1', 'on'].includes(v)) return true;
    if (['false', 'no', '0', 'off'].includes(v)) return false;
    throw new UsageError(`${name} must be true or false, got "${value}"`);
  };
  return Object.assign(parse, { choices: ['true', 'false'], schema: { type: 'boolean' } as ValueSchema });
}

export const ACCESS_LEVELS: Record<string, number> = {
  guest: 10,
  planner: 15,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
};

export function accessLevelName(level: number | null | undefined): string {
  if (level === null || level === undefined) return '';
  if (level === 0) return 'no access';
  const name = Object.entries(ACCESS_LEVELS).find(([, v]) => v === level)?.[0];
  return name ?? String(level);
}

/** An access level by name (guest … owner) or by number. */
export function parseAccessLevel(name: string, allowed: number[] = Object.values(ACCESS_LEVELS)): ChoiceParser<number> {
  const names = Object.entries(ACCESS_LEVELS).filter(([, n]) => allowed.includes(n)).map(([k]) => k);
  const parse = (value: string): number => {
    const v = value.trim().toLowerCase();
    const level = /^\d+$/.test(v) ? Number(v) : v === 'no-access' || v === 'no_access' ? 0 : ACCESS_LEVELS[v];
    if (level === undefined || !allowed.includes(level)) {
      const described = Object.entries(ACCESS_LEVELS).filter(([, n]) => allowed.includes(n)).map(([k, n]) => `${k} (${n})`);
      if (allowed.includes(0)) described.unshift('no-access (0)');
      throw new UsageError(`${name} must be one of ${described.join(', ')}; got "${value}"`, meantChoice(v, names));
    }
    return level;
  };
  return Object.assign(parse, { choices: allowed.includes(0) ? ['no-access', ...names] : names });
}

/** Splits `key=value` arguments; a key given twice or without `=` is a usage error. */
/** Whether a KEY=VALUE pair's value is `@FILE` (or `@-`): read from a local file (or stdin) where pairs take that form. */
export const pairReadsFile = (pair: string): boolean => pair.slice(pair.indexOf('=') + 1).startsWith('@');

export function splitPairs(pairs: string[]): Array<[string, string]> {
  const seen = new Set<string>();
  return pairs.map((pair) => {
    const index = pair.indexOf('=');
    if (index <= 0) throw new UsageError(`expected key=value, got "${pair}"`);
    const key = pair.slice(0, index).trim();
    if (seen.has(key)) throw new UsageError(`${key} is given twice`);
    seen.add(key);
    return [key, pair.slice(index + 1)];
  });
}

/**
 * A count and its noun, as every message writes them: "1 project", "2 projects", "1,234 records" (thousands always
 * separated by commas). `many` for a plural that is not `word` + s ("entries", "repositories").
 */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count.toLocaleString('en-US')} ${pluralNoun(count, word, many)}`;
}

/** The noun alone, as plural() chooses it: "unknown field: x", "unknown fields: x, y". */
export function pluralNoun(count: number, word: string, many = `${word}s`): string {
  return count === 1 ? word : many;
}

/** Edits (insertions, deletions, substitutions, swaps of neighbours) that turn one word into the other. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** The hint for a mistyped value of an option that takes one of a list (-o jsno: json), where one is close. */
function meantChoice(value: string, choices: readonly string[]): string | undefined {
  const near = closestName(value.toLowerCase(), [...choices]);
  return near && `did you mean ${near}?`;
}

/** The known name closest to a mistyped one, for the "did you mean" hint. */
export function closestName(name: string, known: string[]): string | undefined {
  let best: { name: string; score: number } | undefined;
  for (const candidate of known) {
    const score = candidate.includes(name) || name.includes(candidate) ? 1 : editDistance(name, candidate);
    if (!best || score < best.score) best = { name: candidate, score };
  }
  return best && best.score <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** A size in bytes: 512, 200MB, 1.5GiB (KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024). */
export function parseByteSize(name: string, max = Infinity) {
  return (value: string): number => {
    const match = /^(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?$/i.exec(value.trim());
    const bytes = match ? Math.round(Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toLowerCase()]) : NaN;
    if (!Number.isFinite(bytes)) throw new UsageError(`${name} must be a size such as 512, 200MB or 1GiB, got "${value}"`);
    if (bytes > max) throw new UsageError(`${name} must be at most ${max.toLocaleString('en-US')} bytes, got ${value}`);
    return bytes;
  };
}

/** A word for a POSIX shell command line: as it is when that is safe, else in single quotes. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
