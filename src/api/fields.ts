import { UsageError } from '../errors.js';
import { ACCESS_LEVELS, closestName, parseAccessLevel, parseChoice, parseDate, parseDateTime, parseInteger, parseList } from '../parse.js';

/**
 * Field kinds of resource declarations (src/resources/<resource>/resource.ts). A kind says how a flag's text becomes a value
 * (checked locally: bad input exits 2 before anything is sent) and which JSON type the value has on the wire, which
 * the sandbox coerces input to. The parsers come from src/parse.ts, a leaf module that imports only errors.
 */

/** The JSON type of a field's value. */
export type JsonType = 'string' | 'int' | 'bool' | 'list' | 'object';

export interface FieldKind {
  /** 'int', 'cron', 'time zone' … */
  name: string;
  type: JsonType;
  /** The value placeholder of the flag: `--freeze-start <cron>`; empty for a boolean switch. */
  placeholder: string;
  /** Checks and converts a flag's text; throws UsageError naming `label` (the flag, or "badge id"). */
  parse(text: string, label: string, previous?: unknown): unknown;
  /** The values it takes, when it takes one of a list (an enum, an access level by name). */
  choices?: readonly string[];
  /**
   * What a desired-state file may write for the value, as JSON Schema, where `type` alone does not say it (the
   * values of an enum, the range of an int): editors complete and check the file with it.
   */
  schema?: Record<string, unknown>;
}

export interface FieldOptions {
  /** Help text of the option. */
  help?: string;
  /** Set by the service (id, created_at): no option, never sent. */
  readOnly?: boolean;
  /** Sent but never returned (a webhook's secret token): the sandbox stores it and never presents it. */
  writeOnly?: boolean;
  /** Whether create needs it ('required'), takes it (default), or cannot set it ('never'). */
  create?: 'required' | 'optional' | 'never';
  /** false: fixed once created (no option on update). */
  update?: boolean;
  /** The service's default on create (shown in help; the sandbox applies it). */
  default?: unknown;
  /** The option's name when it is not the field's name with dashes: 'mr' for merge_request_iid. */
  flag?: string;
  /** The value placeholder in help when not the kind's: '<iid>', '<tag>'. */
  placeholder?: string;
  /** The service presents null when it is not set (the record type says `T | null`). */
  nullable?: boolean;
  /** An empty text is a value the service takes (a CI/CD variable's may be ""), not a missing one. */
  blank?: boolean;
}

/**
 * A declared field: its kind and options. `T` is the type of its value on the wire; it exists only for the
 * compiler (RecordOf derives a record's type from its declaration's fields).
 */
export interface Field<T = unknown> extends FieldOptions {
  kind: FieldKind;
  /** Never set: carries T for the compiler (a method, so Field<number> is a Field<unknown>). */
  valueType?(value: T): void;
}

/** A field of a kind, keeping the literal options (`readOnly: true`, `nullable: true`) in its type. */
export const fieldOf = <T, const O extends FieldOptions = FieldOptions>(kind: FieldKind, options: O = {} as O): Field<T> & O => ({ ...options, kind }) as Field<T> & O;
const field = fieldOf;

/**
 * The field factory of a kind of its own (a cron expression, a regular expression, a mirror URL …): like f's, it
 * takes the field's options and keeps their literal types.
 */
export const kindField = <T>(kind: FieldKind) => <const O extends FieldOptions = FieldOptions>(options: O = {} as O): Field<T> & O => fieldOf<T, O>(kind, options);

/** The value type of a field: its kind's, `| null` when nullable. */
export type ValueOf<F> = F extends { valueType?(value: infer T): void } ? (F extends { nullable: true } ? T | null : T) : never;

/** A record as the service presents it, typed from a declaration's fields (write-only ones left out). */
export type RecordOf<R extends { fields: Record<string, Field> }> = {
  -readonly [K in keyof R['fields'] as R['fields'][K] extends { writeOnly: true } ? never : K]: ValueOf<R['fields'][K]>;
};

/** A record as stored (the sandbox): every declared field, write-only ones too. */
export type StoredOf<R extends { fields: Record<string, Field> }> = { -readonly [K in keyof R['fields']]: ValueOf<R['fields'][K]> };

function intKind(min = -Infinity, max = Infinity): FieldKind {
  const schema = { ...(Number.isFinite(min) ? { minimum: min } : {}), ...(Number.isFinite(max) ? { maximum: max } : {}) };
  return { name: 'int', type: 'int', placeholder: '<n>', parse: (text, label) => parseInteger(label, min, max)(text), schema };
}

const stringKind: FieldKind = {
  name: 'string',
  type: 'string',
  placeholder: '<text>',
  parse(text, label) {
    if (!text.trim()) throw new UsageError(`${label} must not be empty`);
    return text;
  },
};

/**
 * The IANA time zone name as given, in the spelling the zone database uses (the service's lookup is
 * case-sensitive), or undefined when Node does not know it. Aliases such as UTC, Etc/UTC and US/Pacific are IANA
 * names too; UTC offsets like +01:00 are not zone names and are refused.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return undefined;
  }
  return Intl.supportedValuesOf('timeZone').find((zone) => zone.toLowerCase() === name.toLowerCase()) ?? name;
}

/**
 * The known zone closest to a mistyped one, for the hint: its city (the last part) within the edit distance every
 * "did you mean" allows, so a name far from any zone (Mars/Olympus) gets an example instead of a wild guess.
 */
export function similarTimeZone(name: string): string | undefined {
  const city = (zone: string): string => zone.toLowerCase().split('/').pop() ?? '';
  const needle = city(name);
  if (needle.length < 3) return undefined;
  const zones = Intl.supportedValuesOf('timeZone');
  const match = closestName(needle, zones.map(city));
  return match === undefined ? undefined : zones.find((zone) => city(zone) === match);
}

/**
 * An http(s) URL with a literal host. Placeholders such as %{project_path} may appear in the path and query but not
 * as the host (the service answers "is blocked: URI is invalid"). Returns whether the service accepts it.
 */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.hostname.includes('%');
  } catch {
    return false;
  }
}

/**
 * Regexes of push rules and mirrors are run by the service with RE2, which has no lookaround and no backreferences. A pattern
 * must compile as a JavaScript regex and avoid those constructs; returns the problem, or undefined when fine.
 */
export function re2Problem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
  const unescaped = pattern.replace(/\\\\/g, '');
  if (/\(\?<?[=!]/.test(unescaped)) return 'lookahead and lookbehind are not supported by RE2';
  if (/\\[1-9]|\\k</.test(unescaped)) return 'backreferences are not supported by RE2';
  return undefined;
}

/** The field kind of a regular expression the service runs with RE2 ("" clears it). */
export const re2Regex = kindField<string>({
  name: 'regex',
  type: 'string',
  placeholder: '<regex>',
  parse(text, label) {
    const problem = text ? re2Problem(text) : undefined;
    if (problem) throw new UsageError(`${label} "${text}" is not a valid regular expression: ${problem}`);
    return text;
  },
});

/** What a badge URL may hold besides a literal URL. */
export const BADGE_URL_HINT = 'placeholders such as %{project_path} work in the path and query';

/** The field kinds. Each takes the field's options (help, readOnly, create, default …). */
export const f = {
  int: <const O extends FieldOptions & { min?: number; max?: number } = FieldOptions>(options: O = {} as O) => field<number, O>(intKind(options.min, options.max), options),
  string: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) => field<string, O>(stringKind, options),
  /** A switch: `--enabled`, and on update also `--no-enabled`. */
  bool: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) => field<boolean, O>({ name: 'bool', type: 'bool', placeholder: '', parse: (text) => text }, options),
  enum: <const V extends readonly string[], const O extends FieldOptions = FieldOptions>(values: V, options: O = {} as O) =>
    field<V[number], O>({ name: 'enum', type: 'string', placeholder: `<${values.join('|')}>`, parse: (text, label) => parseChoice(label, values)(text), choices: values, schema: { enum: [...values] } }, options),
  /** An access level by name (guest … owner) or number, sent as the number. */
  accessLevel: <const O extends FieldOptions = FieldOptions>(allowed: number[] = Object.values(ACCESS_LEVELS), options: O = {} as O) =>
    field<number, O>({
      name: 'access level',
      type: 'int',
      placeholder: '<level>',
      parse: (text, label) => parseAccessLevel(label, allowed)(text),
      choices: parseAccessLevel('', allowed).choices,
      schema: { oneOf: [{ enum: [...(allowed.includes(0) ? ['no-access'] : []), ...Object.keys(ACCESS_LEVELS).filter((name) => allowed.includes(ACCESS_LEVELS[name]))] }, { enum: allowed }] },
    }, options),
  /** A calendar date, YYYY-MM-DD. */
  date: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) => field<string, O>({ name: 'date', type: 'string', placeholder: '<YYYY-MM-DD>', parse: (text, label) => parseDate(label)(text), schema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' } }, options),
  /** An ISO 8601 date-time. */
  time: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) => field<string, O>({ name: 'time', type: 'string', placeholder: '<datetime>', parse: (text, label) => parseDateTime(label)(text) }, options),
  /** An IANA time zone name, checked against Node's zone database and given the database's spelling. */
  timeZone: kindField<string>({
    name: 'time zone',
    type: 'string',
    placeholder: '<zone>',
    parse(text, label) {
      const zone = canonicalTimeZone(text);
      if (zone) return zone;
      const similar = similarTimeZone(text);
      throw new UsageError(`${label} "${text}" is not an IANA time zone name`, similar ? `did you mean ${similar}?` : 'for example UTC, Europe/Berlin, America/New_York');
    },
  }),
  /** An http(s) URL with a literal host name; `hint` says what else may be in it (a badge's placeholders). */
  url: <const O extends FieldOptions & { hint?: string } = FieldOptions>({ hint, ...options }: O = {} as O) =>
    field<string, Omit<O, 'hint'>>({
      name: 'url',
      type: 'string',
      placeholder: '<url>',
      parse(text, label) {
        if (!isHttpUrl(text)) throw new UsageError(`${label} must be an http(s) URL with a literal host name, got "${text}"`, hint);
        return text;
      },
    }, options),
  /** A credential the service never returns; redacted in --dry-run and --verbose output by its name. */
  secret: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) => field<string, O>({ ...stringKind, name: 'secret', placeholder: '<secret>' }, options),
  /** A comma-separated, repeatable list of strings. */
  list: <const O extends FieldOptions = FieldOptions>(options: O = {} as O) =>
    field<string[], O>({ name: 'list', type: 'list', placeholder: '<a,b>', parse: (text, _label, previous) => parseList(text, previous as string[] | undefined) }, options),
  /** A nested object the service returns (author, metadata): read-only. */
  object: <T = unknown>(options: FieldOptions = {}): Field<T> =>
    field<T>({ name: 'object', type: 'object', placeholder: '', parse: (_text, label) => { throw new UsageError(`${label} cannot be set`); } }, { readOnly: true, ...options }),
};
