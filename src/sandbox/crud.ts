import type { Field } from '../api/fields.js';
import { creatableFields, presentedFields, settableFields, updatableFields, type ParentKind, type ResourceDef, type SingletonDef } from '../api/resource.js';
import { groupFor, projectFor, requireAdmin, requireTier, requireUser, Role, userFor } from './auth.js';
import { defineTable, type Db } from './db.js';
import { array, bool, created, errors, HttpError, int, noContent, ok, required, type SandboxRequest, type SandboxResponse } from './http.js';
import { collectionTableName, singletonTableName, type Group, type Project, type User } from './model.js';
import type { SandboxModule, SeedContext } from './module.js';
import { paginate } from './pagination.js';
import type { Router } from './router.js';

/**
 * The sandbox's plain CRUD of a declared resource (src/resources/<resource>/resource.ts), as the service serves one: records
 * presented with the declared fields in declared order, 400 "x is missing" for required fields, the declared
 * defaults, 201/200/204, pagination headers, "404 <Noun> Not Found", and the declared roles (a project the caller
 * cannot see is 404, too low a role 403). What is particular to a resource comes in through hooks.
 *
 * Stored records hold the declared fields plus `project_id`, `group_id` or `user_id` (and the scope parameters); fields named
 * created_at and updated_at are set when a record is created and updated.
 */

export type Parent = Project | Group | User;
/** A stored record: an id, the declared fields, and the parent's id. */
export type Stored = { id: number };
type Values = Record<string, unknown>;
const value = (record: Stored, name: string): unknown => (record as Values)[name];

export interface CrudHooks<T extends Stored> {
  /** Table and id sequence; default: the last segment of the list route ('freeze_periods'). */
  table?: string;
  /** "404 <this> Not Found"; default: the noun in title case ('Freeze Period'). */
  notFound?: string;
  /** The records a parent sees, in list order; default: its own records, oldest first. */
  visible?(db: Db, parent: Parent): T[];
  /**
   * Model validation on create and update (throw errors.validation(…)), after defaults are applied; may also derive
   * values (a webhook's secret is reset when its URL changes). `previous` is the record before an update.
   */
  validate?(record: T, req: SandboxRequest, previous?: T): void;
  /** Values of declared read-only fields the sandbox computes when presenting (rendered URLs, kind). */
  computed?(record: T, req: SandboxRequest, parent: Parent): Record<string, unknown>;
  /** Refusals of a delete (throw an HttpError). */
  beforeDelete?(record: T, req: SandboxRequest): void;
  /** Routes of the resource's own, registered before the generic ones (so /badges/render is not taken for an id). */
  routes?(api: Router): void;
  /** Seed data; insert() fills defaults, id and timestamps. */
  seed?(db: Db, context: SeedContext, insert: (parentId: number, values: Partial<T>) => T): void;
}

export interface Crud<T extends Stored> extends SandboxModule {
  table(db: Db): T[];
  /** The record the route's id parameter names among those the parent sees, else 404 (for a resource's own routes). */
  find(req: SandboxRequest, parent: Parent): T;
  /** The record as the service presents it. */
  present(record: T, req: SandboxRequest, parent: Parent): Record<string, unknown>;
}

const titleCase = (noun: string): string => noun.replace(/\b[a-z]/g, (c) => c.toUpperCase());


/** An input value as the field's JSON type; undefined when absent. */
function coerce(name: string, field: Field, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  switch (field.kind.type) {
    case 'int':
      return int(value, name);
    case 'bool':
      return bool(value);
    case 'list':
      return array(value);
    case 'object':
      return value;
    default:
      return String(value);
  }
}

/** The instance as a parent: records of the instance have parent id 0. */
const INSTANCE = { id: 0 } as Parent;

/**
 * The parent a declared route names ({project}, {group}, {user}), checked for the role (a project the caller cannot
 * see is 404, too low a role 403) and the tier; the instance for instance resources (administrators only, when the
 * declaration's write role is 'owner' and the route changes something, as instance settings are). A user's records
 * are read by anyone signed in, and changed (write role 'owner') by administrators.
 */
function parentOf(resource: { parent: ParentKind; tier?: 'premium' | 'ultimate' }, req: SandboxRequest, minRole: number): Parent {
  let parent: Parent;
  if (resource.parent === 'project') parent = projectFor(req, minRole);
  else if (resource.parent === 'group') parent = groupFor(req, minRole);
  else {
    if (minRole >= Role.owner) requireAdmin(req);
    else requireUser(req);
    parent = resource.parent === 'user' ? userFor(req, minRole) : INSTANCE;
  }
  if (resource.tier) requireTier(req, resource.tier);
  return parent;
}

export function crudModule<T extends Stored>(resource: ResourceDef, hooks: CrudHooks<T> = {}): Crud<T> {
  const tableName = hooks.table ?? collectionTableName(resource);
  const table = defineTable<T>(tableName);
  const parentKey = `${resource.parent}_id`;
  const scopeFields = Object.entries(resource.scope ?? {});
  const fields = Object.entries(resource.fields);
  const shown = presentedFields(resource);
  const notFound = hooks.notFound ?? titleCase(resource.noun);

  const parentFor = (req: SandboxRequest, minRole: number): Parent => parentOf(resource, req, minRole);
  const scopeOf = (req: SandboxRequest): Record<string, unknown> =>
    Object.fromEntries(scopeFields.map(([name, field]) => [name, coerce(name, field, req.params[name])]));
  const visible = (req: SandboxRequest, parent: Parent): T[] => {
    const scope = scopeOf(req);
    const records = hooks.visible ? hooks.visible(req.db, parent) : table(req.db).filter((r) => value(r, parentKey) === parent.id).sort((a, b) => a.id - b.id);
    return records.filter((r) => Object.entries(scope).every(([key, wanted]) => value(r, key) === wanted));
  };
  const find = (req: SandboxRequest, parent: Parent): T => {
    const record = visible(req, parent).find((r) => String(value(r, resource.id.field)) === req.params[resource.id.param]);
    if (!record) throw errors.notFound(notFound);
    return record;
  };
  const present = (record: T, req: SandboxRequest, parent: Parent): Record<string, unknown> => {
    const extra = hooks.computed?.(record, req, parent) ?? {};
    return Object.fromEntries(shown.map(([name]) => [name, name in extra ? extra[name] : (value(record, name) ?? null)]));
  };
  const insert = (db: Db, parentId: number, values: Partial<T>, now: Date): T => {
    const at = now.toISOString();
    const record: Values = { id: db.nextId(tableName), [parentKey]: parentId, ...values };
    for (const [name, field] of fields) if (record[name] === undefined && field.default !== undefined) record[name] = field.default;
    if ('created_at' in resource.fields) record.created_at ??= at;
    if ('updated_at' in resource.fields) record.updated_at ??= at;
    table(db).push(record as unknown as T);
    return record as unknown as T;
  };
  const read = Role[resource.roles.read];
  const write = Role[resource.roles.write];

  return {
    table,
    find,
    present,
    routes(api) {
      hooks.routes?.(api);
      const { list, get, create, update, delete: remove } = resource.routes;
      if (list) {
        api.route(list, (req) => {
          const parent = parentFor(req, read);
          const filters = Object.entries(resource.filters ?? {}).map(([name, field]) => [name, coerce(name, field, req.input[name])] as const).filter(([, given]) => given !== undefined);
          const records = visible(req, parent).filter((r) => filters.every(([name, wanted]) => value(r, name) === wanted));
          return paginate(req, records, { present: (r) => present(r, req, parent) });
        });
      }
      if (get) {
        api.route(get, (req) => {
          const parent = parentFor(req, read);
          return ok(present(find(req, parent), req, parent));
        });
      }
      if (create) {
        api.route(create, (req) => {
          const parent = parentFor(req, write);
          const values: Record<string, unknown> = { ...scopeOf(req) };
          for (const [name, field] of creatableFields(resource)) {
            values[name] = field.create === 'required' ? coerce(name, field, required(req, name)) : coerce(name, field, req.input[name]);
            if (values[name] === undefined && field.default !== undefined) values[name] = field.default;
          }
          hooks.validate?.(values as unknown as T, req);
          return created(present(insert(req.db, parent.id, values as Partial<T>, req.now()), req, parent));
        });
      }
      if (update) {
        api.route(update, (req) => {
          const parent = parentFor(req, write);
          const record = find(req, parent);
          const next: Values = { ...record };
          for (const [name, field] of updatableFields(resource)) {
            const given = coerce(name, field, req.input[name]);
            if (given !== undefined) next[name] = given;
          }
          hooks.validate?.(next as unknown as T, req, record);
          Object.assign(record, next);
          if ('updated_at' in resource.fields) Object.assign(record, { updated_at: req.now().toISOString() });
          return ok(present(record, req, parent));
        });
      }
      if (remove) {
        api.route(remove, (req) => {
          const record = find(req, parentFor(req, write));
          hooks.beforeDelete?.(record, req);
          table(req.db).splice(table(req.db).indexOf(record), 1);
          return noContent();
        });
      }
    },
    seed: hooks.seed && ((db, context) => hooks.seed!(db, context, (parentId, values) => insert(db, parentId, values, context.now))),
  };
}

export interface SingletonHooks<T extends Stored> {
  /** Table and id sequence; default: the noun with underscores, plural ('push_rules'). */
  table?: string;
  /** "404 <this> Not Found" of update and delete when there is none; default: the noun in title case. */
  notFound?: string;
  /** The 422 error of a create when there is one already ("Project push rule exists"). */
  exists?: string;
  /** The answer of a read when there is none; default 200 with a JSON null. */
  absent?(req: SandboxRequest): SandboxResponse;
  /** Whether a stored record counts as there (a mirror switched off does not); default: always. */
  present?(record: T): boolean;
  /** Model validation after the input is applied (throw errors.validation(…)); may derive values. */
  validate?(record: T, req: SandboxRequest, previous?: T): void;
  /** Values of presented fields the sandbox computes (a masked URL). */
  computed?(record: T, req: SandboxRequest): Record<string, unknown>;
  /** Called on each read before presenting (a background update moving on). */
  onRead?(record: T, req: SandboxRequest): void;
  /** Routes of the resource's own (a mirror's sync). */
  routes?(api: Router, find: (req: SandboxRequest, minRole?: number) => T | undefined): void;
  /** Seed data; insert() fills the declared defaults, id and parent. */
  seed?(db: Db, context: SeedContext, insert: (parentId: number, values: Partial<T>) => T): void;
}

export interface Singleton<T extends Stored> extends SandboxModule {
  table(db: Db): T[];
}

/**
 * The sandbox's module of a declared singleton (src/api/resource.ts defineSingleton), as the service serves one: GET
 * presents it in declared field order (absent: a JSON null, or the hook's answer); POST creates it (422 when there
 * is one); PUT changes the fields given, or creates it when the service has no create route; DELETE removes it;
 * each needs at least one settable field ("… are missing, at least one parameter must be provided"), coerces input
 * to the declared types and applies the declared defaults to a new record. Roles and tier as declared.
 */
export function singletonModule<T extends Stored>(resource: SingletonDef, hooks: SingletonHooks<T> = {}): Singleton<T> {
  const tableName = hooks.table ?? singletonTableName(resource);
  const table = defineTable<T>(tableName);
  const parentKey = `${resource.parent}_id`;
  const settable = settableFields(resource);
  const notFound = hooks.notFound ?? titleCase(resource.noun);
  const read = Role[resource.roles.read];
  const write = Role[resource.roles.write];
  const find = (req: SandboxRequest, minRole: number = read): T | undefined => {
    const parent = parentOf(resource, req, minRole);
    return table(req.db).find((r) => value(r, parentKey) === parent.id);
  };
  const there = (record: T | undefined): record is T => record !== undefined && (hooks.present?.(record) ?? true);
  const show = (record: T, req: SandboxRequest): Record<string, unknown> => {
    const extra = hooks.computed?.(record, req) ?? {};
    return Object.fromEntries(presentedFields(resource).map(([name]) => [name, name in extra ? extra[name] : (value(record, name) ?? null)]));
  };
  const apply = (req: SandboxRequest, record: T, previous?: T): void => {
    if (!settable.some(([name]) => req.input[name] !== undefined)) {
      throw errors.error(400, `${settable.map(([name]) => name).join(', ')} are missing, at least one parameter must be provided`);
    }
    for (const [name, field] of settable) {
      if (req.input[name] === null) (record as Values)[name] = null;
      else {
        const given = coerce(name, field, req.input[name]);
        if (given !== undefined) (record as Values)[name] = given;
      }
    }
    hooks.validate?.(record, req, previous);
  };
  const blank = (parentId: number, now: Date): T => {
    const record: Values = {};
    for (const [name, field] of Object.entries(resource.fields)) record[name] = field.default ?? null;
    Object.assign(record, { id: 0, [parentKey]: parentId });
    if ('created_at' in resource.fields) record.created_at = now.toISOString();
    return record as unknown as T;
  };
  const fresh = (req: SandboxRequest): T => blank(parentOf(resource, req, write).id, req.now());
  const insert = (req: SandboxRequest, record: T): T => {
    const existing = table(req.db).find((r) => value(r, parentKey) === value(record, parentKey));
    if (existing) Object.assign(existing, record);
    else {
      record.id = req.db.nextId(tableName);
      table(req.db).push(record);
    }
    return existing ?? record;
  };
  const { get, create, update, delete: remove } = resource.routes;
  return {
    table,
    routes(api) {
      hooks.routes?.(api, find);
      api.route(get, (req) => {
        const record = find(req);
        if (!there(record)) return hooks.absent?.(req) ?? ok(null);
        hooks.onRead?.(record, req);
        return ok(show(record, req));
      });
      if (create) {
        api.route(create, (req) => {
          if (there(find(req, write))) throw new HttpError(422, { error: hooks.exists ?? `${titleCase(resource.noun)} exists` });
          const record = fresh(req);
          apply(req, record);
          return created(show(insert(req, record), req));
        });
      }
      if (update) {
        api.route(update, (req) => {
          const existing = find(req, write);
          if (!existing && create) throw errors.notFound(notFound);
          const next = existing ? { ...existing } : fresh(req);
          apply(req, next, existing);
          if ('updated_at' in resource.fields) Object.assign(next, { updated_at: req.now().toISOString() });
          return ok(show(insert(req, next), req));
        });
      }
      if (remove) {
        api.route(remove, (req) => {
          const record = find(req, write);
          if (!there(record)) throw errors.notFound(notFound);
          table(req.db).splice(table(req.db).indexOf(record), 1);
          return noContent();
        });
      }
    },
    seed: hooks.seed && ((db, context) => hooks.seed!(db, context, (parentId, values) => {
      const record = Object.assign(blank(parentId, context.now), values);
      record.id = db.nextId(tableName);
      table(db).push(record);
      return record;
    })),
  };
}
