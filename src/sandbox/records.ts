import type { Field } from '../api/fields.js';
import { presentedFields, type ParentKind, type Placement } from '../api/resource.js';
import { groupFor, projectFor, requireAdmin, requireTier, requireUser, Role, userFor } from './auth.js';
import { array, bool, errors, int, type SandboxRequest } from './http.js';
import type { Group, ParentIds, Project, User } from './model.js';

/**
 * The sandbox's records derived from their declarations (src/resources/<resource>/resource.ts): the type a record is
 * stored as, its parent, input coerced to the declared types, and the record as the service presents it. The
 * generated modules (crud.ts, singleton.ts) are written with these; a hand-written module uses them too, so that a
 * field added to a declaration is stored, presented and typed without another line.
 */

/** A stored record: an id, the declared fields, and the parent's id. */
export type Stored = { id: number };

export type Parent = Project | Group | User;

/** The instance as a parent: records of the instance have parent id 0. */
export const INSTANCE = { id: 0 } as Parent;

export type Values = Record<string, unknown>;

/** A stored record's value of a field. */
export const valueOf = (record: Stored, name: string): unknown => (record as Values)[name];

/** What a lookup found, else "404 <noun> Not Found" ("404 Not found" without a noun). */
export function found<T>(value: T | undefined | null, noun?: string): T {
  if (!value) throw errors.notFound(noun);
  return value;
}

/** Grape's at_least_one_of: 400 "a, b are missing, at least one parameter must be provided" when none is given. */
export function requireOneOf(req: SandboxRequest, names: readonly string[]): void {
  if (!names.some((name) => req.input[name] !== undefined)) throw errors.error(400, `${names.join(', ')} are missing, at least one parameter must be provided`);
}

/** "404 Freeze Period Not Found": a noun in title case. */
export const titleCase = (noun: string): string => noun.replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** The name a record's parent id is stored under: project_id, group_id, user_id, instance_id. */
export const parentKey = (parent: ParentKind): keyof ParentIds => `${parent}_id`;

/**
 * A date-time parameter as the service stores it: a date (2026-01-31: midnight UTC) or a date-time, in ISO form; ""
 * is none (null). 400 "x is invalid" when it is neither, as Grape's DateTime coercion answers.
 */
function dateTime(name: string, value: unknown): string | null {
  const text = String(value);
  if (text === '') return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) throw errors.error(400, `${name} is invalid`);
  return date.toISOString();
}

/** An input value as the field's JSON type (a date-time in ISO form); undefined when absent. */
export function coerce(name: string, field: Field, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (field.kind.name === 'time') return dateTime(name, value);
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

/**
 * The parent a declared route names ({project}, {group}, {user}), checked for the role (a project the caller cannot
 * see is 404, too low a role 403) and the tier; the instance for instance resources (administrators only, when the
 * role is 'owner', as instance settings and the instance's lists of everyone's records are). A user's records are
 * read by anyone signed in, and changed (write role 'owner') by administrators.
 */
export function parentOf(placement: { parent: ParentKind; tier?: 'premium' | 'ultimate' }, req: SandboxRequest, minRole: number): Parent {
  let parent: Parent;
  if (placement.parent === 'project') parent = projectFor(req, minRole);
  else if (placement.parent === 'group') parent = groupFor(req, minRole);
  else {
    if (minRole >= Role.owner) requireAdmin(req);
    else requireUser(req);
    parent = placement.parent === 'user' ? userFor(req, minRole) : INSTANCE;
  }
  if (placement.tier) requireTier(req, placement.tier);
  return parent;
}

/**
 * A record as the service presents it, derived from the declaration: the fields it presents (write-only ones, and
 * those the placement's answers go without, left out), in declared order, each the stored value (null when unset)
 * or what `computed` gives for it. A computed value of undefined leaves the field out of the answer (the free
 * edition's answers go without some). A record known by its name (a feature flag) has no id.
 */
export function presentRecord(declared: { fields: Record<string, Field> } & Pick<Placement, 'without'>, record: object, computed: Values = {}): Values {
  const answer: Values = {};
  // Built by assignment: fleets list thousands of projects, and object-from-entries answers are slower to make.
  for (const name of shownFields(declared)) answer[name] = name in computed ? computed[name] : ((record as Values)[name] ?? null);
  return answer;
}

const shownByDeclaration = new WeakMap<object, string[]>();
/** The names of the fields a declaration's answers show, once per declaration. */
function shownFields(declared: { fields: Record<string, Field> } & Pick<Placement, 'without'>): string[] {
  let names = shownByDeclaration.get(declared);
  if (!names) {
    names = presentedFields(declared).map(([name]) => name).filter((name) => !declared.without?.includes(name));
    shownByDeclaration.set(declared, names);
  }
  return names;
}

/**
 * A record the sandbox derives rather than stores (a branch from its ref, a file from its blob), as the service
 * presents it: the declared fields in declared order, each what `values` gives for it (null when it gives nothing).
 */
export const presentDerived = (declared: { fields: Record<string, Field> } & Pick<Placement, 'without'>, values: Values): Values => presentRecord(declared, { id: 0 }, values);
