import type { Field } from '../api/fields.js';
import { creatableFields, placed, updatableFields, type MultiParentDef, type ResourceDef } from '../api/resource.js';
import { Role } from './auth.js';
import { defineTable, type Db } from './db.js';
import { created, noContent, ok, required, type SandboxRequest } from './http.js';
import { collectionTableName } from './model.js';
import type { SandboxModule, SeedContext } from './module.js';
import { paginate, type PaginateOptions } from './pagination.js';
import { coerce, found, parentKey, parentOf, presentRecord, titleCase, valueOf, type Parent, type Stored, type Values } from './records.js';
import type { Router } from './router.js';

export type { Parent, Stored } from './records.js';

/**
 * The sandbox's CRUD of a declared collection (src/resources/<resource>/resource.ts), as the service serves one, at
 * every placement the declaration has (a project's, a group's, the instance's): records presented with the declared
 * fields in declared order (records.ts presentRecord), 400 "x is missing" for required fields, input coerced to the
 * declared types, the declared defaults, 201/200/204, pagination headers, "404 <Noun> Not Found", the declared roles
 * and tiers (a project the caller cannot see is 404, too low a role 403). What is particular to a resource — the
 * model's checks, values the service derives, side effects — comes in through hooks.
 *
 * Stored records (records.ts StoredRecord) hold the declared fields plus `project_id`, `group_id`, `user_id` or
 * `instance_id` (and the scope parameters); fields named created_at and updated_at are set when a record is created
 * and updated. The placements of a resource share one table.
 */

/**
 * One placement of the resource as a route serves it: the declaration seen there, its key ('' when it has one), the
 * parent, and the stored values the route's scope parameters stand for (which its records have).
 */
export interface Where {
  placement: ResourceDef;
  key: string;
  parent: Parent;
  scope: Values;
}

/** What the resource's module does beside its routes (seedAfter, onPush) passes through as the module's. */
export interface CrudHooks<T extends Stored> extends Pick<SandboxModule, 'seedAfter' | 'onPush'> {
  /** Table and id sequence; default: the last segment of the list route ('freeze_periods'). */
  table?: string;
  /** "404 <this> Not Found"; default: the noun in title case ('Freeze Period'). */
  notFound?: string;
  /** Refusals before the route's parent is looked up (a placement of a higher tier refused whatever the group named). */
  guard?(req: SandboxRequest, where: Pick<Where, 'key' | 'placement'>): void;
  /**
   * The route's parent, the caller checked for `minRole`, where the declared roles are not the whole rule (a guest of
   * a public project writes drafts on its merge requests; the declared Reporter is what a private one needs);
   * default: parentOf().
   */
  parent?(req: SandboxRequest, placement: ResourceDef, minRole: number): Parent;
  /**
   * The stored values the route's scope parameters stand for, where they are not the parameters as given (a merge
   * request's IID stands for its merge_request_id; a merge request that does not exist is 404). A scope found this
   * way is found before the caller's role to write is checked, as the service finds the merge request first.
   */
  scope?(req: SandboxRequest, where: Omit<Where, 'scope'>): Values;
  /** Refusals of a create, update or delete once the parent and scope are found (a merged merge request's rules stay). */
  writable?(req: SandboxRequest, where: Where): void;
  /** The records a parent has, in list order; default: its own records, oldest first. */
  visible?(db: Db, parent: Parent, where: Where): T[];
  /** The records its list shows, of those (a project's protected branches list its groups' too); default: those. */
  listed?(records: T[], req: SandboxRequest, where: Where): T[];
  /**
   * The placements (by key) whose list and get answer callers without a token too, as the service answers them for
   * public projects and groups (the parent's lookup says what such a caller sees); default: none.
   */
  publicReads?: string[];
  /**
   * The fields a list presents its records with, where they are not the placement's (a merge request's list goes
   * without the fields of a single one); default: the placement's.
   */
  listedAs?(req: SandboxRequest, where: Where): Pick<ResourceDef, 'fields' | 'without'>;
  /** The list is answered whole, without pagination, as the service answers it (a merge request's draft notes). */
  unpaginated?: boolean;
  /** The list also pages by keyset (`pagination=keyset`), as pagination.ts takes it; default: offset only (405). */
  keyset?: PaginateOptions<T>['keyset'];
  /** How a declared filter selects records, where it is not a field of theirs (a deploy token's `active`). */
  filters?: Record<string, (record: T, wanted: unknown, req: SandboxRequest) => boolean>;
  /** The record a route names, of those its id matches (a key in several scopes); default: the one. Undefined: 404. */
  choose?(matches: T[], req: SandboxRequest, where: Where): T | undefined;
  /**
   * Model validation on create and update (throw errors.validation(…)), after defaults are applied; may also derive
   * values (a webhook's secret is reset when its URL changes). `previous` is the record before an update.
   */
  validate?(record: T, req: SandboxRequest, previous: T | undefined, where: Where): void;
  /**
   * The values a create or an update takes from the request, where it does not take each declared field as given (a
   * merge request's rule takes its name, approvals and approvers, and may copy a project rule's); `previous` is the
   * record before an update.
   */
  input?(req: SandboxRequest, where: Where, previous: T | undefined): Values;
  /**
   * What follows a create, an update or a delete (a merge request needs the approvals its rules add up to);
   * `previous` is the record as it was before an update (an issue's webhook tells a close from an edit).
   */
  changed?(record: T, req: SandboxRequest, where: Where, previous?: T): void;
  /** Completes a new record as it is stored, created or seeded: values the service derives, which may name its id. */
  onInsert?(record: T, context: { db: Db; now: Date }): void;
  /** Values of declared read-only fields the sandbox computes when presenting (rendered URLs, `expired`). */
  computed?(record: T, req: SandboxRequest, parent: Parent, where: Where): Values;
  /** What the answer of a create has beyond the record (a token's secret, shown this once). */
  created?(record: T): Values;
  /** Refusals of a delete (throw an HttpError). */
  beforeDelete?(record: T, req: SandboxRequest, where: Where): void;
  /**
   * Declared routes served elsewhere, left out here: by another module (an instance's service account is deleted
   * with the users API's DELETE /users/:id), or by this one's own `routes` (the list of licenses, answered whole).
   */
  servedElsewhere?: string[];
  /** Routes of the resource's own, registered before the generic ones (so /badges/render is not taken for an id). */
  routes?(api: Router): void;
  /** Seed data; insert() fills defaults, id and timestamps (`placement`: the key of a resource under several parents). */
  seed?(db: Db, context: SeedContext, insert: (parentId: number, values: Partial<T>, placement?: string) => T): void;
}

export interface Crud<T extends Stored> extends SandboxModule {
  table(db: Db): T[];
  /**
   * The record the route's id parameter names among those the parent sees, else 404 (for a resource's own routes);
   * `placement`: the key of a resource under several parents (default: its first).
   */
  find(req: SandboxRequest, parent: Parent, placement?: string): T;
  /** The record as the service presents it. */
  present(record: T, req: SandboxRequest, parent: Parent): Values;
}

/** The placements of a declaration by key: its own (''), or one per parent. */
const placementsOf = (resource: ResourceDef | MultiParentDef): Array<[string, ResourceDef]> =>
  'parents' in resource ? Object.keys(resource.parents).map((key) => [key, placed(resource, key)]) : [['', resource]];

/** An input value of a field a create needs: 400 "x is missing" without it ("" is missing unless the field takes blank text). */
function requiredInput(req: SandboxRequest, name: string, field: Field): unknown {
  return field.blank && req.input[name] === '' ? '' : required(req, name);
}

/** What the pieces of a crudModule share: the declaration, its hooks, its placements and the one table they keep. */
interface Collection<T extends Stored> {
  resource: ResourceDef | MultiParentDef;
  hooks: CrudHooks<T>;
  placements: Array<[string, ResourceDef]>;
  tableName: string;
  table: (db: Db) => T[];
  notFound: string;
}

export function crudModule<T extends Stored>(resource: ResourceDef | MultiParentDef, hooks: CrudHooks<T> = {}): Crud<T> {
  const placements = placementsOf(resource);
  const tableName = hooks.table ?? collectionTableName(placements[0][1]);
  const collection: Collection<T> = {
    resource, hooks, placements, tableName,
    table: defineTable<T>(tableName),
    notFound: hooks.notFound ?? titleCase(resource.noun),
  };
  const [first] = placements[0];
  return {
    table: collection.table,
    find: (req, parent, key = first) => find(collection, req, locate(collection, req, key, parent)),
    present: (record, req, parent) => present(collection, record, req, locate(collection, req, first, parent)),
    routes(api) {
      hooks.routes?.(api);
      for (const [key, placement] of placements) serve(collection, api, key, placement);
    },
    seedAfter: hooks.seedAfter,
    onPush: hooks.onPush,
    seed: hooks.seed && ((db, context) => hooks.seed!(db, context, (parentId, values, key = first) => insert(collection, db, key, parentId, values, context.now))),
  };
}

const placementOf = (c: Pick<Collection<Stored>, 'placements'>, key: string): ResourceDef => c.placements.find(([k]) => k === key)![1];

/** The stored values a placement's scope parameters stand for, as given in the route. */
const scopeOf = (req: SandboxRequest, placement: ResourceDef): Values =>
  Object.fromEntries(Object.entries(placement.scope ?? {}).map(([name, field]) => [name, coerce(name, field, req.params[name])]));

/** One placement as a request's route names it, under the parent found. */
function locate<T extends Stored>(c: Collection<T>, req: SandboxRequest, key: string, parent: Parent): Where {
  const where = { key, parent, placement: placementOf(c, key) };
  return { ...where, scope: c.hooks.scope ? c.hooks.scope(req, where) : scopeOf(req, where.placement) };
}

/** The records a parent has in the route's scope, in list order. */
function visible<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where): T[] {
  const own = (): T[] => c.table(req.db).filter((r) => valueOf(r, parentKey(where.placement.parent)) === where.parent.id).sort((a, b) => a.id - b.id);
  const records = c.hooks.visible ? c.hooks.visible(req.db, where.parent, where) : own();
  return records.filter((r) => Object.entries(where.scope).every(([key, wanted]) => valueOf(r, key) === wanted));
}

/** The record the route's id parameter names, else "404 <Noun> Not Found". */
function find<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where): T {
  const matches = visible(c, req, where).filter((r) => String(valueOf(r, c.resource.id.field)) === req.params[c.resource.id.param]);
  return found(c.hooks.choose ? c.hooks.choose(matches, req, where) : matches[0], c.notFound);
}

function present<T extends Stored>(c: Collection<T>, record: T, req: SandboxRequest, where: Where, declared: Pick<ResourceDef, 'fields' | 'without'> = where.placement): Values {
  return presentRecord(declared, record, c.hooks.computed?.(record, req, where.parent, where));
}

/** Stores a new record with its id, parent, declared defaults and timestamps, completed by onInsert. */
function insert<T extends Stored>(c: Collection<T>, db: Db, key: string, parentId: number, values: Partial<T>, now: Date): T {
  const placement = placementOf(c, key);
  const at = now.toISOString();
  const record: Values = { id: db.nextId(c.tableName), [parentKey(placement.parent)]: parentId, ...values };
  for (const [name, field] of Object.entries(c.resource.fields)) if (record[name] === undefined && field.default !== undefined) record[name] = field.default;
  if ('created_at' in c.resource.fields) record.created_at ??= at;
  if ('updated_at' in c.resource.fields) record.updated_at ??= at;
  c.hooks.onInsert?.(record as unknown as T, { db, now });
  c.table(db).push(record as unknown as T);
  return record as unknown as T;
}

/** The routes of one placement: those of the five verbs it declares, less those served elsewhere. */
function serve<T extends Stored>(c: Collection<T>, api: Router, key: string, placement: ResourceDef): void {
  const at = locator(c, key, placement);
  const ours = (route: string | undefined): string | undefined => (route && !c.hooks.servedElsewhere?.includes(route) ? route : undefined);
  const [list, get, create, update, remove] = (['list', 'get', 'create', 'update', 'delete'] as const).map((verb) => ours(placement.routes[verb]));
  const reads = c.hooks.publicReads?.includes(key) ? { auth: 'optional' as const } : undefined;
  if (list) api.route(list, (req) => listRecords(c, req, at(req, false)), reads);
  if (get) api.route(get, (req) => getRecord(c, req, at(req, false)), reads);
  if (create) api.route(create, (req) => createRecord(c, req, at(req, true)));
  if (update) api.route(update, (req) => updateRecord(c, req, at(req, true)));
  if (remove) api.route(remove, (req) => deleteRecord(c, req, at(req, true)));
}

/**
 * Where a route of one placement is, for a read or a write: its guard, the parent the caller may read (or write), the
 * scope, and the refusals of a write.
 */
function locator<T extends Stored>(c: Collection<T>, key: string, placement: ResourceDef): (req: SandboxRequest, writes: boolean) => Where {
  const { hooks } = c;
  const read = Role[placement.roles.read];
  const write = Role[placement.roles.write];
  const lookup = (req: SandboxRequest, minRole: number): Parent => (hooks.parent ? hooks.parent(req, placement, minRole) : parentOf(placement, req, minRole));
  return (req, writes) => {
    hooks.guard?.(req, { key, placement });
    // A scope of its own (a merge request) is found before the role to write is checked, as the service finds it first.
    const where = locate(c, req, key, lookup(req, writes && !hooks.scope ? write : read));
    if (writes && hooks.scope) lookup(req, write);
    if (writes) hooks.writable?.(req, where);
    return where;
  };
}

/** GET of the list: the parent's records in scope, as hooks.listed selects them, by the declared filters, paginated. */
function listRecords<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where) {
  const { hooks } = c;
  const filters = Object.entries(where.placement.filters ?? {}).map(([name, field]) => [name, coerce(name, field, req.input[name])] as const).filter(([, given]) => given !== undefined);
  const selects = (record: T, name: string, wanted: unknown): boolean => (hooks.filters?.[name] ? hooks.filters[name](record, wanted, req) : valueOf(record, name) === wanted);
  const own = visible(c, req, where);
  const records = (hooks.listed ? hooks.listed(own, req, where) : own).filter((r) => filters.every(([name, wanted]) => selects(r, name, wanted)));
  const declared = hooks.listedAs?.(req, where);
  const presentListed = (r: T) => present(c, r, req, where, declared);
  return hooks.unpaginated ? ok(records.map(presentListed)) : paginate(req, records, { present: presentListed, keyset: hooks.keyset });
}

function getRecord<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where) {
  return ok(present(c, find(c, req, where), req, where));
}

/** POST: the declared input (or hooks.input) in the route's scope, validated, stored; 201 with what hooks.created adds. */
function createRecord<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where) {
  const { hooks } = c;
  const values: Values = { ...where.scope, ...(hooks.input ? hooks.input(req, where, undefined) : declaredInput(c.resource, req)) };
  hooks.validate?.(values as unknown as T, req, undefined, where);
  const record = insert(c, req.db, where.key, where.parent.id, values as Partial<T>, req.now());
  hooks.changed?.(record, req, where);
  return created({ ...present(c, record, req, where), ...hooks.created?.(record) });
}

/** The values of a create: each creatable field as given, coerced to its type, else its default. */
function declaredInput(resource: ResourceDef | MultiParentDef, req: SandboxRequest): Values {
  const values: Values = {};
  for (const [name, field] of creatableFields(resource)) {
    values[name] = coerce(name, field, field.create === 'required' ? requiredInput(req, name, field) : req.input[name]);
    if (values[name] === undefined && field.default !== undefined) values[name] = field.default;
  }
  return values;
}

/** The values an update changes: each updatable field given, coerced to its type. */
function declaredChanges(resource: ResourceDef | MultiParentDef, req: SandboxRequest): Values {
  const changes: Values = {};
  for (const [name, field] of updatableFields(resource)) {
    // An explicit null clears a field the service presents as null when unset.
    if (field.nullable && req.input[name] === null) changes[name] = null;
    const given = coerce(name, field, req.input[name]);
    if (given !== undefined) changes[name] = given;
  }
  return changes;
}

/** PUT: the fields given change (hooks.input may say otherwise), validated as a whole before any is stored. */
function updateRecord<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where) {
  const { hooks } = c;
  const record = find(c, req, where);
  const previous = { ...record };
  const next: Values = { ...record, ...(hooks.input ? hooks.input(req, where, record) : declaredChanges(c.resource, req)) };
  hooks.validate?.(next as unknown as T, req, record, where);
  Object.assign(record, next);
  if ('updated_at' in c.resource.fields) Object.assign(record, { updated_at: req.now().toISOString() });
  hooks.changed?.(record, req, where, previous);
  return ok(present(c, record, req, where));
}

/** DELETE: unless hooks.beforeDelete refuses, 204. */
function deleteRecord<T extends Stored>(c: Collection<T>, req: SandboxRequest, where: Where) {
  const record = find(c, req, where);
  c.hooks.beforeDelete?.(record, req, where);
  c.table(req.db).splice(c.table(req.db).indexOf(record), 1);
  c.hooks.changed?.(record, req, where);
  return noContent();
}
