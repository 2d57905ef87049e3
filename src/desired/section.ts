import type { Field } from '../api/fields.js';
import { settableFields } from '../api/resource.js';
import { UsageError } from '../errors.js';
import type { Change, FieldChange, FieldSpec, Level, LiveObject, Owner, SectionIo } from './model.js';

/**
 * One section of a desired-state file (push_rule, badges, hooks …): what the file may write in it, and how its
 * objects are read from the instance and changed. Most sections are built from a resource declaration
 * (src/resources/<resource>/resource.ts): the file's fields are the declaration's settable fields, parsed by the same field kinds
 * as the command-line flags, and the calls take the declared routes.
 */
export interface Section {
  /** The key in the file: `badges`. */
  key: string;
  /** One object in words: 'badge'. */
  noun: string;
  level: Level;
  /** one: a record (null: none); many: a list paired with the live objects by identity; map: records by name. */
  shape: 'one' | 'many' | 'map';
  help: string;
  tier?: 'premium' | 'ultimate';
  fields: Record<string, FieldSpec>;
  /** map: the names an entry may have (plan names); any name when absent. */
  names?: readonly string[];
  /** Entries may hold other keys too (integration settings), each checked by this spec. */
  other?: FieldSpec;
  /** many: the fields that pair a desired object with a live one. */
  identity?: string[];
  /** many: fields each object must give (those the service requires on create). */
  required?: string[];
  /** one and map: null in the file means "none" (deleted when there is one). */
  nullable?: boolean;
  /** The field forgectl marks the objects it creates in (prune: managed deletes only those). */
  marker?: string;
  /** No update: a changed object is deleted and created again. */
  replaceOnly?: boolean;
  /** Compared and reported, never changed (access token policies). */
  auditOnly?: boolean;
  /** export writes this section (not the repository files, not audit policies). */
  exported?: boolean;
  /** Its secrets go with every change, not only with a create (the service wants them each time). */
  sendsSecretsAlways?: boolean;

  /**
   * many: what of a desired object the plan does not compare with the live one: `skip`, fields of forgectl's own
   * (a variable's `rewrite`); `secret`, whether a value that cannot be read back was left uncompared (the plan
   * counts them); `rewrite`, write-only fields every apply writes again (the object is updated each time).
   */
  uncompared?(desired: Record<string, unknown>): { skip: string[]; secret: boolean; rewrite: string[] };
  /**
   * many: the desired values as compared with a live object, where the file gives by reference a value the service
   * shows (a protected or file variable's): the reference read, for the comparison only (never kept in the plan).
   * `unread`: the reference could not be read here (its variable not set), so that value was not compared.
   */
  comparable?(io: SectionIo, desired: Record<string, unknown>, live: Record<string, unknown>): Promise<{ values: Record<string, unknown>; unread?: boolean }>;
  /** A live object's values as export writes them, where they differ from those compared (a protected value as a reference). */
  exportAs?(values: Record<string, unknown>): Record<string, unknown>;
  /** The changed fields as a plan shows them: a credential's value (a protected or file variable's) by its size only. */
  shown?(fields: FieldChange[], live: Record<string, unknown> | undefined, desired: Record<string, unknown>): FieldChange[];
  /** many: live objects the file need not list and prune never deletes (the default branch's protection). */
  keep?(owner: Owner, object: LiveObject): boolean;
  /** What deleting the object loses for good (a hidden variable's value, which nobody can read back), for its plan line. */
  lostWithDelete?(object: LiveObject): string | undefined;
  /**
   * Checks one object of the file beyond its fields (after each field was parsed); throws UsageError (FieldProblem to
   * point at one field). `name`: the object's name in a map section (an integration's slug).
   */
  check?(values: Record<string, unknown>, local: LocalFiles, name?: string): Record<string, unknown>;
  /** The comparable form of a desired field's value, when it differs from the value sent (secret maps: their keys). */
  compareAs?: Record<string, (value: unknown) => unknown>;
  /** map: the names export writes (the integrations a group has). */
  exportNames?(io: SectionIo, owner: Owner): Promise<string[]>;
  /** The live objects of an owner (map sections: of the names given). */
  read(io: SectionIo, owner: Owner, names?: string[]): Promise<LiveObject[]>;
  /** `name`: the entry's name in a map section (an integration's slug). */
  create?(io: SectionIo, owner: Owner, desired: Record<string, unknown>, name?: string): Promise<void>;
  /** `changed`: the fields that differ; `desired`: everything the file declares for the object. */
  update?(io: SectionIo, owner: Owner, live: LiveObject, changed: string[], desired: Record<string, unknown>): Promise<void>;
  remove?(io: SectionIo, owner: Owner, live: LiveObject): Promise<void>;
  /**
   * many: a change of these fields that the service makes only by deleting the object and creating it again (a
   * variable's hidden), and why; undefined when an update does it. A section without update always replaces.
   */
  replaces?(live: LiveObject, changed: string[]): Replacement | undefined;
  /** Why a section without update replaces a changed object, in words. */
  replaceReason?: string;
  /**
   * A replace: reads, before the delete, what it takes to put the old object back, and returns how to (the
   * restore); undefined when the old object cannot be read back (a hidden value).
   */
  keepOld?(io: SectionIo, owner: Owner, live: LiveObject): Promise<(() => Promise<void>) | undefined>;
  /**
   * Checks what a change will send, before the first write of the run (its secrets are read by then): a value the
   * service would refuse, a local file changed since the plan. Throws UsageError.
   */
  prepare?(io: SectionIo, change: Change): Promise<void>;
  /** Write-only fields an update sends again when these fields change (a pull mirror's credentials with its URL). */
  resends?(changed: string[]): string[];
  /**
   * Sections that plan on their own: whether a saved change follows from what the file declares for its owner
   * (a problem in words, or undefined).
   */
  follows?(declared: unknown, change: Change): string | undefined;
  /** Sections that plan on their own (repository files, audits): the changes for what the file declares. */
  plan?(io: SectionIo, owner: Owner, desired: unknown): Promise<Change[]>;
  /** Sections whose changes of one owner go together (repository files: one commit per branch). */
  applyAll?(io: SectionIo, owner: Owner, changes: Change[]): Promise<void>;
}

/** Why an object is deleted and created again, and whether its old content can be read back first. */
export interface Replacement {
  reason: string;
  oldUnreadable?: boolean;
}

/** Local files a desired-state file names (secure files, repository file sources), read relative to it. */
export interface LocalFiles {
  read(path: string): Buffer;
}

/** The JSON Schema of a field kind's values, with what the kind adds (enum values, ranges). */
function kindSchema(field: Field): Record<string, unknown> {
  const type = field.kind.type;
  const base: Record<string, unknown> =
    type === 'int' ? { type: 'integer' } : type === 'bool' ? { type: 'boolean' } : type === 'list' ? { type: 'array', items: { type: 'string' } } : type === 'object' ? { type: 'object' } : { type: 'string' };
  const extra = field.kind.schema ?? {};
  // An access level may be a name or a number: its own schema says both.
  if ('oneOf' in extra) return { ...extra };
  return { ...base, ...extra };
}

/** A field of a declaration as the file writes it: the field kind parses the value as it parses a flag's text. */
export function specOf(field: Field, options: { nullable?: boolean; toFile?: (value: unknown) => unknown } = {}): FieldSpec {
  const schema = kindSchema(field);
  if (options.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return {
    schema,
    help: field.help,
    field,
    secret: field.kind.name === 'secret' || undefined,
    writeOnly: (field.writeOnly && field.kind.name !== 'secret') || undefined,
    toFile: options.toFile,
    parse(value, label) {
      if (value === null || typeof value === 'boolean' || Array.isArray(value) || typeof value === 'object') return value;
      return field.kind.parse(String(value), label);
    },
  };
}

/** The settable fields of a declaration (all but `except`), as file fields. */
export function specsOf(def: { fields: Record<string, Field> }, except: string[] = [], options: Record<string, Parameters<typeof specOf>[1]> = {}): Record<string, FieldSpec> {
  return Object.fromEntries(settableFields(def).filter(([name]) => !except.includes(name)).map(([name, field]) => [name, specOf(field, options[name])]));
}

/** The live record's values of the file's fields (what a read gives the comparison). */
export function pick(record: Record<string, unknown>, fields: Record<string, FieldSpec>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(fields).filter((name) => !fields[name].secret && !fields[name].writeOnly).map((name) => [name, record[name] ?? null]));
}

/** The identity of an object as text: its identity fields' values (the service's default where the file leaves one out). */
export function identityKey(section: Section, values: Record<string, unknown>): string {
  return (section.identity ?? []).map((name) => String(values[name] ?? section.fields[name]?.field?.default ?? '')).join(' … ');
}

/** The identity fields in words: `freeze_start, freeze_end and cron_timezone`. */
export function identityWords(section: Section): string {
  const names = section.identity ?? [];
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? '');
}

/** The marker forgectl puts in the objects it creates (a badge's name, a webhook's description). */
/** A secret reference's schema ({env: VARIABLE}, {file: PATH}, {command: …}): where a file gives a credential. */
export const SECRET_REF = { $ref: '#/definitions/secret' };

export const MARK = '[forgectl]';

/** A marked field's value without the mark, and whether it had it. */
export function unmark(value: unknown): { value: string | null; marked: boolean } {
  if (typeof value !== 'string') return { value: (value as null) ?? null, marked: false };
  if (!value.endsWith(MARK)) return { value, marked: false };
  const rest = value.slice(0, -MARK.length).trimEnd();
  return { value: rest || null, marked: true };
}

/** A value with forgectl's mark added. */
export const mark = (value: unknown): string => (typeof value === 'string' && value ? (unmark(value).marked ? value : `${value} ${MARK}`) : MARK);

/** A check's refusal of one field of the object: reported at that field's line. */
export class FieldProblem extends UsageError {
  constructor(
    readonly field: string,
    message: string,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/** Refuses a value that is not what the check expects, naming the field as the file writes it. */
export function refuse(label: string, problem: string, hint?: string): never {
  throw new UsageError(`${label} ${problem}`, hint);
}
