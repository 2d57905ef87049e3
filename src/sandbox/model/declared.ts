import type { Field, StoredOf } from '../../api/fields.js';
import { placements, type MultiParentDef, type ResourceDef, type SingletonDef } from '../../api/resource.js';
import { defineTable, type Db } from '../db.js';

/**
 * The tables of the generated CRUD modules (crud.ts) are named from their declarations, here, so that a module that
 * reads another resource's records reaches them through the data layer, never through that resource's module.
 */

/**
 * A collection's table and id sequence: the last fixed segment of its list (or create) route ('freeze_periods'), of
 * its first placement when it has several.
 */
export function collectionTableName(resource: ResourceDef | MultiParentDef): string {
  const routes = placements(resource)[0].routes;
  const listRoute = routes.list ?? routes.create ?? '';
  return listRoute.split('/').filter((s) => s && !s.startsWith('{')).pop()!;
}

/** A singleton's table and id sequence: its noun with underscores, plural ('push_rules'). */
export const singletonTableName = (resource: SingletonDef): string => `${resource.noun.replace(/ /g, '_')}s`;

/** The table of a declared collection, as its generated module stores it. */
export const collectionTable = <T>(resource: ResourceDef | MultiParentDef): ((db: Db) => T[]) => defineTable<T>(collectionTableName(resource));

/** The table of a declared singleton, as its generated module stores it. */
export const singletonTable = <T>(resource: SingletonDef): ((db: Db) => T[]) => defineTable<T>(singletonTableName(resource));

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
 * token's secret, access entries stored without the words they are presented with); `Unstored` names the declared
 * fields it does not store: those computed when presenting (a token's `expired`, from the clock), and instructions
 * a request gives (a variable's `masked_and_hidden`).
 */
export type StoredRecord<R extends { fields: Record<string, Field> }, Kept = unknown, Unstored extends keyof R['fields'] = never> =
  Omit<StoredOf<R>, Unstored | keyof Kept> & Kept & ParentIds & { id: number };

/**
 * A record as the sandbox stores it when it keeps only some of its declared fields (`Stored`, typed as declared) and
 * `Kept` beside them; the other declared fields are computed when it is presented (records.ts presentRecord).
 */
export type StoredFields<R extends { fields: Record<string, Field> }, Stored extends keyof R['fields'], Kept = unknown> =
  StoredRecord<R, Kept, Exclude<keyof R['fields'], Stored>>;
