import { settableFields, type SingletonDef } from '../api/resource.js';
import { Role } from './auth.js';
import { defineTable, type Db } from './db.js';
import { created, errors, HttpError, noContent, ok, type SandboxRequest, type SandboxResponse } from './http.js';
import { singletonTableName } from './model.js';
import type { SandboxModule, SeedContext } from './module.js';
import { coerce, parentKey, parentOf, presentRecord, titleCase, valueOf, type Stored, type Values } from './records.js';
import type { Router } from './router.js';

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
  const key = parentKey(resource.parent);
  const settable = settableFields(resource);
  const notFound = hooks.notFound ?? titleCase(resource.noun);
  const read = Role[resource.roles.read];
  const write = Role[resource.roles.write];
  const find = (req: SandboxRequest, minRole: number = read): T | undefined => {
    const parent = parentOf(resource, req, minRole);
    return table(req.db).find((r) => valueOf(r, key) === parent.id);
  };
  const there = (record: T | undefined): record is T => record !== undefined && (hooks.present?.(record) ?? true);
  const show = (record: T, req: SandboxRequest): Record<string, unknown> => presentRecord(resource, record, hooks.computed?.(record, req));
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
    Object.assign(record, { id: 0, [key]: parentId });
    if ('created_at' in resource.fields) record.created_at = now.toISOString();
    return record as unknown as T;
  };
  const fresh = (req: SandboxRequest): T => blank(parentOf(resource, req, write).id, req.now());
  const insert = (req: SandboxRequest, record: T): T => {
    const existing = table(req.db).find((r) => valueOf(r, key) === valueOf(record, key));
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
