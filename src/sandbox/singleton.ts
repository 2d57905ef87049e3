import { settableFields, type SingletonDef } from '../api/resource.js';
import { Role } from './auth.js';
import { defineTable, type Db } from './db.js';
import { created, errors, HttpError, noContent, ok, type SandboxRequest, type SandboxResponse } from './http.js';
import { singletonTableName } from './model.js';
import type { SandboxModule, SeedContext } from './module.js';
import { coerce, parentKey, parentOf, presentRecord, requireOneOf, titleCase, valueOf, type Stored, type Values } from './records.js';
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
  const single: Single<T> = {
    resource, hooks, tableName,
    table: defineTable<T>(tableName),
    key: parentKey(resource.parent),
    settable: settableFields(resource),
    notFound: hooks.notFound ?? titleCase(resource.noun),
    read: Role[resource.roles.read],
    write: Role[resource.roles.write],
  };
  const { table } = single;
  const { get, create, update, delete: remove } = resource.routes;
  return {
    table,
    routes(api) {
      hooks.routes?.(api, (req, minRole) => find(single, req, minRole));
      api.route(get, (req) => readSingleton(single, req));
      if (create) api.route(create, (req) => createSingleton(single, req));
      if (update) api.route(update, (req) => updateSingleton(single, req));
      if (remove) api.route(remove, (req) => deleteSingleton(single, req));
    },
    seed: hooks.seed && ((db, context) => hooks.seed!(db, context, (parentId, values) => {
      const record = Object.assign(blank(single, parentId, context.now), values);
      record.id = db.nextId(tableName);
      table(db).push(record);
      return record;
    })),
  };
}

/** What the pieces of a singletonModule share: the declaration, its hooks, its table and what they derive. */
interface Single<T extends Stored> {
  resource: SingletonDef;
  hooks: SingletonHooks<T>;
  tableName: string;
  table: (db: Db) => T[];
  /** The stored field naming the parent (project_id, group_id). */
  key: string;
  settable: ReturnType<typeof settableFields>;
  notFound: string;
  /** The declared roles to read and to write. */
  read: number;
  write: number;
}

/** The parent's record (the caller checked for `minRole`, by default the declared role to read), stored or not. */
function find<T extends Stored>(s: Single<T>, req: SandboxRequest, minRole: number = s.read): T | undefined {
  const parent = parentOf(s.resource, req, minRole);
  return s.table(req.db).find((r) => valueOf(r, s.key) === parent.id);
}

const there = <T extends Stored>(s: Single<T>, record: T | undefined): record is T => record !== undefined && (s.hooks.present?.(record) ?? true);

const show = <T extends Stored>(s: Single<T>, record: T, req: SandboxRequest): Record<string, unknown> => presentRecord(s.resource, record, s.hooks.computed?.(record, req));

/** Applies the settable fields given (at least one: 400 without), coerced to their types, then the model's checks. */
function apply<T extends Stored>(s: Single<T>, req: SandboxRequest, record: T, previous?: T): void {
  const { settable } = s;
  requireOneOf(req, settable.map(([name]) => name));
  for (const [name, field] of settable) {
    if (req.input[name] === null) (record as Values)[name] = null;
    else {
      const given = coerce(name, field, req.input[name]);
      if (given !== undefined) (record as Values)[name] = given;
    }
  }
  s.hooks.validate?.(record, req, previous);
}

/** A new record of a parent: the declared defaults (else null), not stored yet (id 0). */
function blank<T extends Stored>(s: Single<T>, parentId: number, now: Date): T {
  const { resource } = s;
  const record: Values = {};
  for (const [name, field] of Object.entries(resource.fields)) record[name] = field.default ?? null;
  Object.assign(record, { id: 0, [s.key]: parentId });
  if ('created_at' in resource.fields) record.created_at = now.toISOString();
  return record as unknown as T;
}

/** A new record of the route's parent, which the caller may write. */
const fresh = <T extends Stored>(s: Single<T>, req: SandboxRequest): T => blank(s, parentOf(s.resource, req, s.write).id, req.now());

/** Stores the record over the parent's (or as a new one with an id); the stored record. */
function store<T extends Stored>(s: Single<T>, req: SandboxRequest, record: T): T {
  const existing = s.table(req.db).find((r) => valueOf(r, s.key) === valueOf(record, s.key));
  if (existing) Object.assign(existing, record);
  else {
    record.id = req.db.nextId(s.tableName);
    s.table(req.db).push(record);
  }
  return existing ?? record;
}

/** GET: the record, or a JSON null (or the hook's answer) when there is none. */
function readSingleton<T extends Stored>(s: Single<T>, req: SandboxRequest): SandboxResponse {
  const record = find(s, req);
  if (!there(s, record)) return s.hooks.absent?.(req) ?? ok(null);
  s.hooks.onRead?.(record, req);
  return ok(show(s, record, req));
}

/** POST: 422 when there is one already. */
function createSingleton<T extends Stored>(s: Single<T>, req: SandboxRequest): SandboxResponse {
  if (there(s, find(s, req, s.write))) throw new HttpError(422, { error: s.hooks.exists ?? `${titleCase(s.resource.noun)} exists` });
  const record = fresh(s, req);
  apply(s, req, record);
  return created(show(s, store(s, req, record), req));
}

/** PUT: changes the fields given; where the service has no create route, creates the record when there is none. */
function updateSingleton<T extends Stored>(s: Single<T>, req: SandboxRequest): SandboxResponse {
  const existing = find(s, req, s.write);
  if (!existing && s.resource.routes.create) throw errors.notFound(s.notFound);
  const next = existing ? { ...existing } : fresh(s, req);
  apply(s, req, next, existing);
  if ('updated_at' in s.resource.fields) Object.assign(next, { updated_at: req.now().toISOString() });
  return ok(show(s, store(s, req, next), req));
}

function deleteSingleton<T extends Stored>(s: Single<T>, req: SandboxRequest): SandboxResponse {
  const record = find(s, req, s.write);
  if (!there(s, record)) throw errors.notFound(s.notFound);
  s.table(req.db).splice(s.table(req.db).indexOf(record), 1);
  return noContent();
}
