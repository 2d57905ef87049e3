import type { Field } from './fields.js';

/**
 * A resource declared once, as plain data (src/resources/<resource>/resource.ts): where its records live, its routes,
 * fields, columns and identity. The plain CLI verbs (src/cli/resource-commands.ts), the sandbox's generic modules
 * (src/sandbox/crud.ts), desired state and the contract tests read it; hand-written commands take their routes from
 * it. Importing a declaration is cheap (no CLI, HTTP or sandbox code), so other layers may ask "what are the fields
 * of badges?".
 *
 * Four kinds, one shape:
 * - a collection under one parent: `parent: 'project'` (or 'group', 'user'), routes with `{project}`;
 * - a collection of the instance: `parent: 'instance'`, no parent option, routes without a parent parameter;
 * - a collection under several parents, selected by the option given: `parents: { group: {…}, project: {…},
 *   personal: {…} }`, each a placement with its own routes (and scope);
 * - a singleton (defineSingleton): at most one per parent, routes without an id, verbs get/set/delete.
 */

export type Verb = 'list' | 'get' | 'create' | 'update' | 'delete';

/** Roles of the spec, least first. */
export const ROLES = ['guest', 'reporter', 'developer', 'maintainer', 'owner'] as const;
export type RoleName = (typeof ROLES)[number];

/**
 * Who records belong to: a project or a group (the --project/--group option and the {project}/{group} route
 * parameter), a user (--user and {user}), or the instance itself (no option, no parameter).
 */
export type ParentKind = 'project' | 'group' | 'user' | 'instance';

/** `'METHOD /path/{param}'` by name: the plain verbs, and the resource's other endpoints for hand-written commands. */
export type Routes = Partial<Record<Verb, string>> & Record<string, string>;

/** Where records live, and the routes that reach them there. */
export interface Placement {
  parent: ParentKind;
  /**
   * Further route parameters naming where records live (the merge request of draft notes), each given by a
   * required option: `{ merge_request_iid: f.int({ min: 1, flag: 'mr' }) }`.
   */
  scope?: Record<string, Field>;
  /** Where records live, in words, for messages (default "project acme/api"): gets the parent and scope values. */
  where?: (params: Record<string, unknown>) => string;
  /**
   * `'METHOD /path/{param}'`: the parent, the scope parameters and the id parameter are expanded. Besides the
   * plain verbs, the other endpoints of the resource by name (`render` of badges), for hand-written commands.
   */
  routes: Routes;
  /**
   * Who may read and change records here, where it is not the resource's (a user's own SSH keys: anyone signed in;
   * anyone's keys, changed by administrators). `placed()` hands them on as the resource's.
   */
  roles?: Roles;
  /** The license tier the routes here need, where it is not the resource's (a group's protected branches: Premium). */
  tier?: 'premium' | 'ultimate';
  /** Fields the service's answers here go without (instance CI/CD variables have no environment scope). */
  without?: string[];
}

/** The least role that may read, and that may change, records. */
export interface Roles {
  read: RoleName;
  write: RoleName;
}

/** What every declaration has. */
interface Described {
  /** What one record is called in messages: 'freeze period' ("Delete freeze period 3 of project acme/api?"). */
  noun: string;
  /**
   * The command group that reads it: `forgectl freeze-periods …` (its verbs come from that folder's manifest, never
   * from the declaration). None for a resource only the sandbox serves, for other clients (python-gitlab,
   * gitbeaker): no forgectl command calls its routes.
   */
  command?: string;
  /** Every field, in the order the service presents them. */
  fields: Record<string, Field>;
  /**
   * The least role that may read, and that may change, records (the sandbox enforces them; help states them). Of
   * the instance, 'owner' means administrators and any other role any signed-in user.
   */
  roles: Roles;
  /** The license tier the endpoints need. */
  tier?: 'premium' | 'ultimate';
}

/** What a collection has beside its placement. */
interface Collection extends Described {
  /** The route parameter naming one record, and the field that holds its value (its kind parses `<id>`). */
  id: { param: string; field: string };
  /** Query parameters of the list route that filter it (`--name` of badges list). */
  filters?: Record<string, Field>;
  /** Default columns of lists: fields, or computed ones. */
  columns: string[];
  /** Columns the list command computes from each record (its `map`), not fields the service returns: a status in words. */
  computed?: string[];
  /** The fields that pair a desired record with a current one (desired state). */
  identity: string[];
}

/** A collection under one parent (or of the instance): its roles are the resource's. */
export interface ResourceDef extends Collection, Omit<Placement, 'roles'> {}

/**
 * A collection under several parents: one placement per option that selects it. The key names the option: a
 * placement whose parent is that kind takes `--group <id|path>`; one with a scope field of that name (or flag)
 * takes that option (`--issue <iid>`); any other is a switch (`--personal`).
 */
export interface MultiParentDef extends Collection {
  parents: Record<string, Placement>;
  /**
   * The placement used when no option selects one (approval rules: the project's, unless --mr names a merge
   * request). Without it, none given is a usage error.
   */
  default?: string;
}

/** The route parameter a parent kind fills, and its option; undefined for the instance. */
export const parentParam = (parent: ParentKind): string | undefined => (parent === 'instance' ? undefined : parent);

function checkPlacement(noun: string, placement: Placement, idParam?: string): void {
  for (const [verb, route] of Object.entries(placement.routes)) {
    const needs = idParam && (verb === 'get' || verb === 'update' || verb === 'delete') ? [idParam] : [];
    const parent = parentParam(placement.parent);
    for (const param of [...(parent ? [parent] : []), ...Object.keys(placement.scope ?? {}), ...needs]) {
      if (!route.includes(`{${param}}`)) throw new Error(`resource ${noun}: route ${route} has no {${param}}`);
    }
  }
}

function checkNames(def: Collection): void {
  const names = new Set([...Object.keys(def.fields), ...(def.computed ?? [])]);
  for (const name of [...def.columns, ...def.identity, def.id.field]) {
    if (!names.has(name) && !name.includes('.')) throw new Error(`resource ${def.noun}: "${name}" is not a declared field`);
  }
}

/**
 * Checks a declaration's consistency when it is defined (a typo fails the first test that loads it). The
 * declaration keeps its literal types: `freezePeriods.routes.get` is the route string itself, so api.call knows its
 * parameters, and RecordOf<typeof freezePeriods> is the record's type.
 */
/** A declared noun in the plural, as help and hints say it ("badges", "merge request approval rules", "branches"). */
export const nounsOf = (noun: string): string => (noun.endsWith('ch') ? `${noun}es` : `${noun}s`);

export function defineResource<const R extends ResourceDef>(def: R): R;
export function defineResource<const R extends MultiParentDef>(def: R): R;
export function defineResource(def: ResourceDef | MultiParentDef): ResourceDef | MultiParentDef {
  checkNames(def);
  for (const placement of placements(def)) checkPlacement(def.noun, placement, def.id.param);
  return def;
}

/** The placements of a declaration: its own, or one per parent. */
export const placements = (def: ResourceDef | MultiParentDef): Placement[] => ('parents' in def ? Object.values(def.parents) : [def]);

/**
 * A resource under several parents seen at one of them: an ordinary declaration that the plain verbs serve, with the
 * placement's routes (and roles, where it has its own); it keeps the declaration's literal types.
 */
export function placed<const D extends MultiParentDef, K extends keyof D['parents'] & string>(def: D, key: K): Omit<D, 'parents'> & D['parents'][K];
export function placed(def: MultiParentDef, key: string): ResourceDef;
export function placed(def: MultiParentDef, key: string): ResourceDef {
  const { parents, ...rest } = def;
  const placement = parents[key];
  if (!placement) throw new Error(`resource ${def.noun} has no parent "${key}"`);
  return { ...rest, ...placement };
}

/**
 * How a placement of a resource under several parents is chosen on the command line: the parent option
 * (`--group <id|path>`), a scope option (`--issue <iid>`), or a switch (`--personal`).
 */
export function selectorOf(key: string, placement: Placement): { kind: 'parent' | 'scope' | 'switch'; flag: string; field?: string } {
  // The instance has no parent option: `--instance` is a switch.
  if (placement.parent === key && parentParam(placement.parent)) return { kind: 'parent', flag: `--${key}` };
  const scoped = Object.entries(placement.scope ?? {}).find(([name, field]) => (field.flag ?? name.replace(/_/g, '-')) === key || name === key);
  if (scoped) return { kind: 'scope', flag: `--${scoped[1].flag ?? scoped[0].replace(/_/g, '-')}`, field: scoped[0] };
  return { kind: 'switch', flag: `--${key}` };
}

/** Fields a create may send (not read-only, not 'never'). */
export const creatableFields = (def: { fields: Record<string, Field> }): Array<[string, Field]> =>
  Object.entries(def.fields).filter(([, field]) => !field.readOnly && field.create !== 'never');

/** Fields an update may send (not read-only, not fixed once created). */
export const updatableFields = (def: { fields: Record<string, Field> }): Array<[string, Field]> =>
  Object.entries(def.fields).filter(([, field]) => !field.readOnly && field.update !== false);

/** Fields the service returns, in its order (all but write-only ones). */
export const presentedFields = (def: { fields: Record<string, Field> }): Array<[string, Field]> => Object.entries(def.fields).filter(([, field]) => !field.writeOnly);

/** The kind that parses an id: its field's. */
export const idField = (def: ResourceDef): Field => def.fields[def.id.field];

/**
 * A resource its parent has at most one of (a project's push rule, its pull mirror, the instance's application
 * settings): routes without an id. The generated verbs are `get`, `set` (the update route, or create when there is
 * none yet and the service has a create route) and `delete`, each where the service has the route.
 */
export interface SingletonDef extends Described, Omit<Placement, 'roles'> {
  /**
   * `get` reads it (a JSON null, or 404, when there is none); `update` changes it (or creates it when the service
   * has no create route); `create` and `delete` as the service has them.
   */
  routes: { get: string; create?: string; update?: string; delete?: string } & Record<string, string>;
}

export function defineSingleton<const R extends SingletonDef>(def: R): R {
  checkPlacement(def.noun, def);
  return def;
}

/** Fields a desired state or `set` may set: not read-only. */
export const settableFields = (def: { fields: Record<string, Field> }): Array<[string, Field]> => Object.entries(def.fields).filter(([, field]) => !field.readOnly);

/** A route a generic caller needs (desired state, the generated verbs): the declaration must have it. */
export function routeOf(def: { noun: string; routes: Record<string, string | undefined> }, name: string): string {
  const route = def.routes[name];
  if (!route) throw new Error(`resource ${def.noun} declares no ${name} route`);
  return route;
}
