import type { Field } from './fields.js';

/**
 * A resource declared once, as plain data (src/api/resources/<resource>.ts): its routes, fields, columns and
 * identity. The plain CLI verbs (src/cli/resource-commands.ts), the sandbox's generic CRUD (src/sandbox/crud.ts)
 * and the contract test read it; hand-written commands take their routes from it. Importing a declaration is
 * cheap (no CLI, HTTP or sandbox code), so other layers may ask "what are the fields of badges?".
 */

export type Verb = 'list' | 'get' | 'create' | 'update' | 'delete';

/** Roles of the spec, least first. */
export const ROLES = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
export type RoleName = (typeof ROLES)[number];

export interface ResourceDef {
  /** What one record is called in messages: 'freeze period' ("Delete freeze period 3 of project acme/api?"). */
  noun: string;
  /** The command group: `forgectl freeze-periods …`. */
  command: string;
  /** Where records live: the --project or --group option, and the {project} or {group} route parameter. */
  parent: 'project' | 'group';
  /**
   * Further route parameters naming where records live (the merge request of draft notes), each given by a
   * required option: `{ merge_request_iid: f.int({ min: 1, flag: 'mr' }) }`.
   */
  scope?: Record<string, Field>;
  /** Where records live, in words, for messages (default "project acme/api"): gets the parent and scope values. */
  where?: (params: Record<string, unknown>) => string;
  /** The route parameter naming one record, and the field that holds its value (its kind parses `<id>`). */
  id: { param: string; field: string };
  /**
   * `'METHOD /path/{param}'`: {project}/{group}, the scope parameters and the id parameter are expanded. Besides
   * the plain verbs, the other endpoints of the resource by name (`render` of badges), for hand-written commands.
   */
  routes: Partial<Record<Verb, string>> & Record<string, string>;
  /** Every field, in the order the service presents them. */
  fields: Record<string, Field>;
  /** Query parameters of the list route that filter it (`--name` of badges list). */
  filters?: Record<string, Field>;
  /** Default columns of lists: fields, or computed ones. */
  columns: string[];
  /** Columns the list command computes from each record (its `map`), not fields the service returns: a status in words. */
  computed?: string[];
  /** The fields that pair a desired record with a current one (desired state). */
  identity: string[];
  /** The least role that may read, and that may change, records (the sandbox enforces them; help states them). */
  roles: { read: RoleName; write: RoleName };
  /** The license tier the endpoints need. */
  tier?: 'premium' | 'ultimate';
}

/** Checks a declaration's consistency when it is defined (a typo fails the first test that loads it). */
export function defineResource<R extends ResourceDef>(def: R): R {
  const names = new Set([...Object.keys(def.fields), ...(def.computed ?? [])]);
  for (const name of [...def.columns, ...def.identity, def.id.field]) {
    if (!names.has(name) && !name.includes('.')) throw new Error(`resource ${def.noun}: "${name}" is not a declared field`);
  }
  for (const [verb, route] of Object.entries(def.routes)) {
    const needs = verb === 'get' || verb === 'update' || verb === 'delete' ? [def.id.param] : [];
    for (const param of [def.parent, ...Object.keys(def.scope ?? {}), ...needs]) {
      if (!route.includes(`{${param}}`)) throw new Error(`resource ${def.noun}: route ${route} has no {${param}}`);
    }
  }
  return def;
}

/** Fields a create may send (not read-only, not 'never'). */
export const creatableFields = (def: ResourceDef): Array<[string, Field]> =>
  Object.entries(def.fields).filter(([, field]) => !field.readOnly && field.create !== 'never');

/** Fields an update may send (not read-only, not fixed once created). */
export const updatableFields = (def: ResourceDef): Array<[string, Field]> =>
  Object.entries(def.fields).filter(([, field]) => !field.readOnly && field.update !== false);

/** Fields the service returns, in its order (all but write-only ones). */
export const presentedFields = (def: ResourceDef): Array<[string, Field]> => Object.entries(def.fields).filter(([, field]) => !field.writeOnly);

/** The kind that parses an id: its field's. */
export const idField = (def: ResourceDef): Field => def.fields[def.id.field];

/**
 * A resource its parent has at most one of (a project's push rule, its approval settings, its pull mirror): routes
 * without an id, and the fields the service presents. Desired state and the commands read it as they read a
 * declared collection.
 */
export interface SingletonDef {
  noun: string;
  /** The command group: `forgectl push-rule …`. */
  command: string;
  parent: 'project' | 'group';
  /** `get` reads it (a JSON null, or 404, when there is none); the others as the service has them. */
  routes: { get: string; create?: string; update?: string; delete?: string } & Record<string, string>;
  fields: Record<string, Field>;
  roles: { read: RoleName; write: RoleName };
  tier?: 'premium' | 'ultimate';
}

export function defineSingleton<R extends SingletonDef>(def: R): R {
  for (const route of Object.values(def.routes)) {
    if (!route.includes(`{${def.parent}}`)) throw new Error(`resource ${def.noun}: route ${route} has no {${def.parent}}`);
  }
  return def;
}

/** Fields a desired state may set: not read-only. */
export const settableFields = (def: { fields: Record<string, Field> }): Array<[string, Field]> => Object.entries(def.fields).filter(([, field]) => !field.readOnly);
