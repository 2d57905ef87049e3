import type { Field, StoredOf } from '../api/fields.js';
import { presentedFields, type ParentKind, type Placement } from '../api/resource.js';
import { groupFor, projectFor, requireAdmin, requireTier, requireUser, Role, userFor } from './auth.js';
import { array, bool, int, type SandboxRequest } from './http.js';
import type { Group, Project, User } from './model.js';

/**
 * The sandbox's records derived from their declarations (src/resources/<resource>/resource.ts): the type a record is
 * stored as, its parent, input coerced to the declared types, and the record as the service presents it. The
 * generated modules (crud.ts, singleton.ts) are written with these; a hand-written module uses them too, so that a
 * field added to a declaration is stored, presented and typed without another line.
 */

/** Where a stored record lives: the id of its project, group or user; the instance's own records have instance_id 0. */
export interface ParentIds {
  project_id?: number;
  group_id?: number;
  user_id?: number;
  instance_id?: number;
}

/**
 * A record as the sandbox stores it, derived from its declaration: every declared field typed as declared (write-only
 * ones too), its id and where it lives. `Kept` is what the sandbox keeps beside the fields, or instead of one (a
 * token's secret, access entries stored without the words they are presented with); `Computed` names the declared
 * fields the sandbox computes when presenting rather than storing them (a token's `expired`, from the clock).
 */
export type StoredRecord<R extends { fields: Record<string, Field> }, Kept = unknown, Computed extends keyof R['fields'] = never> =
  Omit<StoredOf<R>, Computed | keyof Kept> & Kept & ParentIds & { id: number };

/** A stored record: an id, the declared fields, and the parent's id. */
export type Stored = { id: number };

export type Parent = Project | Group | User;

/** The instance as a parent: records of the instance have parent id 0. */
export const INSTANCE = { id: 0 } as Parent;

export type Values = Record<string, unknown>;

/** A stored record's value of a field. */
export const valueOf = (record: Stored, name: string): unknown => (record as Values)[name];

/** "404 Freeze Period Not Found": a noun in title case. */
export const titleCase = (noun: string): string => noun.replace(/\b[a-z]/g, (c) => c.toUpperCase());

/** The name a record's parent id is stored under: project_id, group_id, user_id, instance_id. */
export const parentKey = (parent: ParentKind): keyof ParentIds => `${parent}_id`;

/** An input value as the field's JSON type; undefined when absent. */
export function coerce(name: string, field: Field, value: unknown): unknown {
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
 * edition's answers go without some).
 */
export function presentRecord(declared: { fields: Record<string, Field> } & Pick<Placement, 'without'>, record: Stored, computed: Values = {}): Values {
  const shown = presentedFields(declared).filter(([name]) => !declared.without?.includes(name));
  return Object.fromEntries(shown.map(([name]) => [name, name in computed ? computed[name] : (valueOf(record, name) ?? null)]));
}
