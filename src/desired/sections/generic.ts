import { routeOf, type ParentKind, type ResourceDef, type SingletonDef } from '../../api/resource.js';
import { ApiError } from '../../errors.js';
import { isSecretRef, type FieldSpec, type Level, type LiveObject, type Owner, type SectionIo } from '../model.js';
import { identityKey, mark, pick, unmark, type Section } from '../section.js';

/**
 * Sections built from a resource declaration: a collection (badges, freeze periods …) paired by its identity, or a
 * singleton (push rule, approval settings …). What differs per resource comes in as options.
 */

type Values = Record<string, unknown>;

/** The body of a create or update: the fields given, secrets resolved, objects forgectl creates marked. */
export async function bodyOf(io: SectionIo, section: Section, desired: Values, names: string[] = Object.keys(desired)): Promise<Values> {
  const body: Values = {};
  for (const name of names) {
    const value = desired[name];
    if (value === undefined) continue;
    const spec = section.fields[name] ?? section.other;
    if (isSecretRef(value)) body[name] = await io.secret(value, `${section.noun} ${name}`);
    else if (spec?.secret && value && typeof value === 'object' && !Array.isArray(value)) {
      // A map of secrets (a webhook's URL variables): [{key, value}] as the service takes it.
      body[name] = await Promise.all(Object.entries(value as Record<string, unknown>).map(async ([key, ref]) => ({ key, value: isSecretRef(ref) ? await io.secret(ref, `${section.noun} ${name} ${key}`) : String(ref) })));
    } else body[name] = value;
  }
  return body;
}

/** Where records live: {project: path} or {group: path}. */
const parentOf = (def: { parent: string }, owner: Owner): Values => ({ [def.parent]: owner.path });

/** The file's level of a declaration: users' records have none (a desired-state file describes projects, groups and the instance). */
function levelOf(def: { noun: string; parent: ParentKind }): Level {
  if (def.parent === 'user') throw new Error(`resource ${def.noun}: records of a user have no desired-state level`);
  return def.parent;
}

export interface CollectionOptions {
  key: string;
  help: string;
  fields: Record<string, FieldSpec>;
  /** Only these live records belong to the project (a project's own badges, not its groups'). */
  keep?: (record: Values) => boolean;
  /** The live record's values in the file's shape (default: the file's fields, marker removed). */
  values?: (record: Values) => Values;
  /** The request body of a create or update from the desired values (default: bodyOf). */
  body?: (io: SectionIo, desired: Values, names: string[]) => Promise<Values>;
  marker?: string;
  required?: string[];
  replaceOnly?: boolean;
  /** Why a changed object is deleted and created again (a section without update). */
  replaceReason?: string;
  overrides?: Partial<Section>;
}

/** A declared collection as a section of the file: listed, paired by its declared identity, created, updated, deleted. */
export function collectionSection(def: ResourceDef, options: CollectionOptions): Section {
  const section: Section = {
    key: options.key,
    noun: def.noun,
    level: levelOf(def),
    shape: 'many',
    help: options.help,
    tier: def.tier,
    fields: options.fields,
    identity: def.identity,
    required: options.required ?? def.identity,
    marker: options.marker,
    replaceOnly: options.replaceOnly ?? !def.routes.update,
    replaceReason: options.replaceReason,
    exported: true,
    async read(io, owner) {
      const live: LiveObject[] = [];
      for await (const record of io.api.list<Values>(routeOf(def, 'list'), parentOf(def, owner), { all: true })) {
        if (options.keep && !options.keep(record)) continue;
        let values = options.values ? options.values(record) : pick(record, options.fields);
        let managed = false;
        if (options.marker) {
          const { value, marked } = unmark(values[options.marker]);
          values = { ...values, [options.marker]: value };
          managed = marked;
        }
        live.push({ key: identityKey(section, values), values, ref: { [def.id.param]: record[def.id.field] }, managed });
      }
      return live;
    },
    async create(io, owner, desired) {
      const body = await (options.body ?? ((i, d, n) => bodyOf(i, section, d, n)))(io, desired, Object.keys(desired));
      if (options.marker) body[options.marker] = mark(desired[options.marker]);
      await io.api.call(routeOf(def, 'create'), { ...parentOf(def, owner), ...body });
    },
    async remove(io, owner, live) {
      await io.api.call(routeOf(def, 'delete'), { ...parentOf(def, owner), ...live.ref });
    },
    ...options.overrides,
  };
  if (def.routes.update && !options.replaceOnly) {
    section.update = async (io, owner, live, changed, desired) => {
      const body = await (options.body ?? ((i, d, n) => bodyOf(i, section, d, n)))(io, desired, changed);
      if (options.marker && options.marker in body && live.managed) body[options.marker] = mark(body[options.marker]);
      await io.api.call(routeOf(def, 'update'), { ...parentOf(def, owner), ...body, ...live.ref });
    };
  }
  return section;
}

export interface SingletonOptions {
  key: string;
  help: string;
  fields: Record<string, FieldSpec>;
  /** The live record's values in the file's shape (default: the file's fields). */
  values?: (record: Values) => Values;
  /** A create and an update both go through update's route (PUT sets it up). */
  upsert?: boolean;
  /** How "none" is written to the service, when it is not the delete route (a mirror: PUT enabled=false). */
  removeBody?: Values;
  /** Whether an error of the read means "there is none" (default: a 404). */
  absent?: (error: ApiError) => boolean;
  /** Fields sent again with any update (they would be lost, or the service requires them each time). */
  resend?: (changed: string[]) => string[];
  overrides?: Partial<Section>;
}

/** A declared singleton as a section: absent (JSON null or 404), or one record changed field by field. */
export function singletonSection(def: SingletonDef, options: SingletonOptions): Section {
  const nullable = Boolean(def.routes.delete || options.removeBody);
  const section: Section = {
    key: options.key,
    noun: def.noun,
    level: levelOf(def),
    shape: 'one',
    help: options.help,
    tier: def.tier,
    fields: options.fields,
    nullable,
    exported: true,
    resends: options.resend,
    async read(io, owner) {
      let record: Values | null;
      try {
        record = await io.api.call<Values | null>(def.routes.get, parentOf(def, owner));
      } catch (error) {
        if (error instanceof ApiError && nullable && (options.absent ? options.absent(error) : error.status === 404)) return [];
        throw error;
      }
      if (!record) return [];
      return [{ key: def.noun, values: options.values ? options.values(record) : pick(record, options.fields) }];
    },
    async update(io, owner, _live, changed, desired) {
      const names = [...new Set([...changed, ...(section.resends?.(changed) ?? [])])];
      await io.api.call(routeOf(def, 'update'), { ...parentOf(def, owner), ...(await bodyOf(io, section, desired, names)) });
    },
    ...options.overrides,
  };
  if (def.routes.create || options.upsert) {
    section.create = async (io, owner, desired) => {
      await io.api.call(routeOf(def, options.upsert ? 'update' : 'create'), { ...parentOf(def, owner), ...(await bodyOf(io, section, desired)) });
    };
  }
  if (def.routes.delete) section.remove = async (io, owner) => void (await io.api.call(routeOf(def, 'delete'), parentOf(def, owner)));
  else if (options.removeBody) section.remove = async (io, owner) => void (await io.api.call(routeOf(def, 'update'), { ...parentOf(def, owner), ...options.removeBody }));
  return section;
}

/** "" and null both mean "no regex": the service presents an unset one as null. */
export function noEmptyRegex(fields: readonly string[]) {
  return (values: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, fields.includes(k) && v === '' ? null : v]));
}

/** The nullable option of specsOf for each field named. */
export const nullables = (names: readonly string[]): Record<string, { nullable: true }> => Object.fromEntries(names.map((name) => [name, { nullable: true }]));

/** A record's values in the file's shape, where an empty text of a field named is "not set": null. */
export const blankAsNull = (fields: Record<string, FieldSpec>, names: readonly string[]) => (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(pick(record, fields)).map(([name, value]) => [name, value === '' && names.includes(name) ? null : value]));
